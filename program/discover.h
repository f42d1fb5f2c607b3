// Finding the files to check: recursive, git-ignore aware, skipping hidden folders, virtualenvs
// and site-packages, with --exclude globs. Also derives each file's module name.
#pragma once

#include <filesystem>
#include <functional>
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
  // More exclusions (the configuration's), asked for each file and folder found, by its path as
  // discovered; may throw.
  std::function<bool(const std::string& path)> isExcluded;
  // Told each folder's absolute, normal path and entry names once listed, before anything in it
  // is asked about: the configuration's resolver learns there which folders hold no config.
  std::function<void(const std::string& absoluteFolder, const std::vector<std::string>& names)>
      onFolderListed;
  // Apply the exclusions to files named on the command line too (for pre-commit, which names
  // every staged file).
  bool forceExclude = false;
  // Also search folders for C++ sources (.cpp .cc .cxx .cu). Set when compile flags are given
  // (-p or --); C++ files named on the command line are always checked, headers only then.
  bool includeCppSources = false;
};

struct DiscoveryResult {
  std::vector<SourceFileRef> files;
  std::vector<std::string> errors;   // "path: why"
  std::vector<std::string> warnings; // files found but not checked: "path: why"
};

DiscoveryResult discoverFiles(const std::vector<std::string>& roots,
                              const DiscoveryOptions& options);

// Package context of one path (used for stdin input too).
SourceFileRef describeFile(const std::string& path);

// True for the extensions the Python checker reads.
bool isPythonPath(const std::string& path);

// True for the extensions the C++ checker reads: .cpp .cc .cxx .cu, and headers .h .hpp (also
// .hh .hxx .cuh). isCppSourcePath: the sources only.
bool isCppPath(const std::string& path);
bool isCppSourcePath(const std::string& path);

} // namespace gradlint
