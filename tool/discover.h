// Finding the files to check: recursive, git-ignore aware, skipping hidden folders, virtualenvs
// and site-packages, with --exclude globs. Also derives each file's module name.
#pragma once

#include <string>
#include <vector>

namespace gradlint {

struct SourceFileRef {
  std::string path;       // as displayed (relative when discovered under a relative root)
  std::string moduleName; // dotted module name from the package layout, or the file stem
  bool isPackageInit = false;
  bool inPackage = false;
};

struct DiscoveryOptions {
  std::vector<std::string> excludes; // fnmatch globs, matched against paths and base names
  bool respectGitignore = true;
};

struct DiscoveryResult {
  std::vector<SourceFileRef> files;
  std::vector<std::string> errors; // "path: why"
};

DiscoveryResult discoverFiles(const std::vector<std::string>& roots,
                              const DiscoveryOptions& options);

// Package context of one path (used for stdin input too).
SourceFileRef describeFile(const std::string& path);

// True for the extensions the Python checker reads.
bool isPythonPath(const std::string& path);

} // namespace gradlint
