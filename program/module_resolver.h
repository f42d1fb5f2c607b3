// Resolves dotted module names to files over ordered search paths, the way a type checker does
// (first-party folders before the standard library and site-packages; a regular package, a
// module file, a stub, a compiled module or a namespace package folder), without importing
// anything. Also says which installed distribution a module comes from (its *.dist-info).
#pragma once

#include "program/python_environment.h"

#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace gradlint {

enum class ModuleFileKind {
  Source,    // a .py file (or a package's __init__.py): readable code
  StubOnly,  // only a .pyi: declarations, no behaviour to summarise
  Compiled,  // an extension module (.so, .pyd): no source
  Namespace, // a folder without __init__.py: no code of its own
  Stdlib,    // in the standard library: known to do nothing to grad mode, never read
};

struct ResolvedModule {
  ModuleFileKind kind = ModuleFileKind::Source;
  std::filesystem::path file; // Source: the .py file; else what was found
  SearchPathKind searchKind = SearchPathKind::Project;
  size_t searchPath = 0;        // index into the resolver's search paths
  std::string relativePath;     // from its search folder: `cosmos_guardrail/checker.py`
  bool isPackageInit = false;
};

// An installed distribution, from its *.dist-info (or *.egg-info) folder.
struct Distribution {
  std::string name;
  std::string version;
  std::filesystem::path metadataFolder;
  // The names its metadata requires (`Requires-Dist`, extras included), normalised (lower
  // case, `_` and `.` as `-`), without versions or markers.
  std::vector<std::string> requirements;
  std::string label() const { return version.empty() ? name : name + " " + version; }
};

// The entries of the folders a run looks in, each folder listed once: resolving one name tries
// up to six files in every search path, and most of them are absent, so a stat per candidate
// costs far more than one read of each folder. Links are followed (a linked file or folder
// counts as what it points to; a broken or looping link as nothing), when first asked about.
// A folder that cannot be listed is asked about name by name, as a stat would.
class FolderIndex {
public:
  enum class Kind : char { None, File, Folder, Other };

  // What `folder/name` is.
  Kind kindOf(const std::string& folder, const std::string& name);
  // The extension modules of `folder`: `name` of name.so, name.pyd,
  // name.cpython-311-x86_64-linux-gnu.so.
  const std::unordered_set<std::string>& compiledModules(const std::string& folder);

  static std::string join(const std::string& folder, const std::string& name);

  // Every path whose state the answers so far depend on: the folders listed (or tried), and
  // the entries looked at one by one (links, names in a folder that could not be listed).
  void pathsLookedAt(std::vector<std::string>& out) const;

  // The entries that exist but could not be looked at (a symlink loop, no permission): (path,
  // why), in the order met. An import of one is unresolved; --show-context says why.
  const std::vector<std::pair<std::string, std::string>>& problems() const { return problems_; }

private:
  struct Listing {
    bool listed = false; // false: opendir failed; entries fill as names are asked about
    // An entry whose kind the listing did not say (a link): Kind::Other until looked at, with
    // `resolved` false.
    struct Entry {
      Kind kind = Kind::None;
      bool resolved = true;
    };
    std::unordered_map<std::string, Entry> entries;
    std::unordered_set<std::string> compiled;
  };
  Listing& listingOf(const std::string& folder);

  std::unordered_map<std::string, Listing> folders_;
  std::vector<std::string> entriesLookedAt_;
  std::vector<std::pair<std::string, std::string>> problems_;
};

class ModuleResolver {
public:
  explicit ModuleResolver(std::vector<SearchPath> searchPaths);

  // The module `dotted` names, or nullopt (with `why` set) when no search path holds it.
  // Answers are remembered: each name costs its file-system lookups once.
  std::optional<ResolvedModule> resolve(const std::string& dotted, std::string* why = nullptr);

  // Whether `dotted`, which resolve() did not find, is of the standard library: a module built
  // into the interpreter (gc, sys, math), or a name under a standard library module (os.path
  // is an alias that os sets up when it runs). Such imports are not unresolved.
  bool isUnreadStandardLibrary(const std::string& dotted);

  // The distribution that installed the top-level module `topLevel` into search path `index`
  // (null when no metadata there names it).
  const Distribution* distributionOf(size_t index, const std::string& topLevel);

  // Whether code of `distribution` may change torch's grad mode: it is torch's (a name starting
  // with `torch`), or requires one that may, transitively, among the distributions installed on
  // the search paths. A distribution that requires nothing of the kind cannot import torch
  // unless its metadata leaves the requirement out (docs/context.md says what that costs).
  bool mayReachTorch(const Distribution& distribution);

  const std::vector<SearchPath>& searchPaths() const { return searchPaths_; }

  // Every path whose state the answers so far depend on (folders listed, entries looked at,
  // metadata files read or tried): what a run that trusts these answers again must see
  // unchanged (program/context_snapshot.h).
  void pathsLookedAt(std::vector<std::string>& out) const;

  // What could not be looked at, and why (path, why): entries of the search folders
  // (FolderIndex::problems) and distribution metadata that could not be read.
  std::vector<std::pair<std::string, std::string>> problems() const;

private:
  std::optional<ResolvedModule> find(const std::string& dotted);

  std::vector<SearchPath> searchPaths_;
  std::unordered_map<std::string, std::optional<ResolvedModule>> resolved_;
  FolderIndex folders_;
  // Per search path: top-level module name -> distribution (read on first use).
  std::unordered_map<size_t, std::map<std::string, std::shared_ptr<Distribution>>> distributions_;
  std::vector<std::string> metadataLookedAt_; // the folders and files distributionOf read
  std::vector<std::pair<std::string, std::string>> metadataProblems_;
  // Every installed distribution by normalised name (the first search path's wins), made on the
  // first mayReachTorch; and its answers.
  std::unordered_map<std::string, const Distribution*> byName_;
  bool byNameMade_ = false;
  std::unordered_map<std::string, bool> reachesTorch_;
};

} // namespace gradlint
