// The context collector's own declarations, shared by its files (not an interface for others):
//   project_context.cpp      the entry points: the project root, collectContext, addProgramContext,
//                            and the context snapshot's key and replay
//   context_collector.cpp    following the imports of the checked files through the project and
//                            the installed packages (ContextCollector)
//   context_cache_files.cpp  the distribution cache's entries and the import memo, on disk
//   context_summaries.cpp    the import graph of a run and the context summary cache
#pragma once

#include "program/project_context.h"

#include "checkers/python/imports.h"
#include "program/context_snapshot.h"
#include "program/definition_slices.h"
#include "program/file_stat.h"
#include "program/module_resolver.h"

#include <nlohmann/json.hpp>
#include <xxhash.h>

#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace gradlint {

// The import graph of a run's modules, as the context summary cache's keys need it.
struct ContextGraph {
  struct Node {
    std::string name;
    bool isPackageInit = false;
    bool checked = false;
    bool readable = false;
    bool installed = false;     // found on the installed search path
    bool fromCache = false;     // its summaries came from the distribution cache
    std::string file;           // where it was found
    std::string origin;         // installed: "name version"
    std::string contentKey;     // a checked file: contentKeyOf its text and its path
    std::string distribution;   // in a distribution: the name of that distribution's entry
    std::set<std::string> targets;
  };
  std::vector<Node> nodes;
  std::unordered_map<std::string, size_t> byName;       // kNone: resolved to nothing read
  std::unordered_map<std::string, size_t> rootByPath;   // the checked files' nodes
  std::string cwd; // context paths are relative to it
};

namespace context_detail {

namespace fs = std::filesystem;

// Packages modelled by the API catalogs (checkers read their calls as events): their source is
// never read.
bool isModelled(std::string_view topLevel);

std::string topLevelOf(const std::string& dotted);

std::string contentKeyOf(std::string_view text);

std::string canonicalPath(const fs::path& path);

// Paths made canonical (links resolved) to compare files named in different ways. A whole walk
// costs a stat and a readlink per component, and a run compares every checked file and every
// module it resolves: a file or folder that is no link is its canonical folder (remembered) and
// its name, at the cost of one lstat.
class CanonicalPaths {
public:
  std::string of(const fs::path& path) {
    auto [known, added] = paths_.try_emplace(path.string());
    if (added) {
      std::error_code ec;
      const fs::path absolute = fs::absolute(path, ec);
      known->second = ec ? canonicalPath(path) : canonicalBelowFolder(absolute, false);
    }
    return known->second;
  }

private:
  // `path` (absolute) made canonical: a plain entry of its folder (a file, or a folder when
  // `folder`) is the folder's canonical path with its name; anything else takes the whole walk.
  std::string canonicalBelowFolder(const fs::path& path, bool folder) {
    const fs::path name = path.filename();
    std::error_code ec;
    const fs::file_status status = fs::symlink_status(path, ec);
    const bool plain = !ec && (folder ? fs::is_directory(status) : fs::is_regular_file(status));
    if (!plain || name.empty() || name == "." || name == ".." || !path.has_relative_path()) {
      return canonicalPath(path);
    }
    const fs::path parent = path.parent_path();
    auto [known, added] = folders_.try_emplace(parent.string());
    // Each folder above once; a path has few components, so the depth stays small.
    if (added) known->second = canonicalBelowFolder(parent, true);
    return (fs::path(known->second) / name).string();
  }

  std::unordered_map<std::string, std::string> paths_;
  std::unordered_map<std::string, std::string> folders_;
};

// What an import of a module asks of it. A package's __init__ is mostly a hub of re-exports:
// only the imports that bind the names asked for are followed. Any other module's body may use
// any of its imports, so all of them are followed.

// What an import of a module asks of it. A package's __init__ is mostly a hub of re-exports:
// only the imports that bind the names asked for are followed. Any other module's body may use
// any of its imports, so all of them are followed.
struct Demand {
  bool all = false;
  std::set<std::string> names;
  // Adds `other`; true when something is new.
  bool add(const Demand& other) {
    if (all) return false;
    if (other.all) return all = true;
    bool grew = false;
    for (const std::string& name : other.names) grew = names.insert(name).second || grew;
    return grew;
  }
};

// The distribution cache (under the cache folder, `distributions/`): one entry per installed
// distribution, named by what identifies its installed files (name, version, its RECORD or,
// without one, its metadata's stat) and this gradlint, holding the modules read of it (with
// their imports) and their summaries. Installed code changes only with an install, so a
// second run reads none of it.
// 3: modules followed for their top level; 4: parent packages and other distributions followed
inline constexpr int kDistributionEntryFormat = 4;

// The import memo (under the cache folder, `context/imports-XX.json`): each checked file's
// imports with the stat they were scanned at, so a run over unchanged files finds their imports
// without reading them (the result cache then reads only what it shows). Split into buckets by
// the path's hash: a run reads and writes only the buckets of the files it names.
inline constexpr int kImportMemoFormat = 3;
inline constexpr uint64_t kImportMemoBuckets = 64;

struct ImportMemo {
  struct Entry {
    FileStat stat;
    int64_t takenNs = 0;
    std::vector<python::ImportStatement> imports;
    std::string contentKey; // the hash of its text (contentKeyOf), for the summary cache's keys
    std::vector<std::vector<std::string>> attributesRead; // per statement (attributesRead)
  };
  std::vector<std::unordered_map<std::string, Entry>> buckets{kImportMemoBuckets};
  std::vector<char> loaded = std::vector<char>(kImportMemoBuckets, 0);
  std::vector<char> changed = std::vector<char>(kImportMemoBuckets, 0);

  static size_t bucketOf(const std::string& path) {
    return XXH3_64bits(path.data(), path.size()) % kImportMemoBuckets;
  }
  const Entry* find(const std::string& path) const {
    const auto& bucket = buckets[bucketOf(path)];
    const auto found = bucket.find(path);
    return found == bucket.end() ? nullptr : &found->second;
  }
};

std::string distributionKey(const Distribution& distribution);

nlohmann::json issuedToJson(const IssuedDemand& issued);

IssuedDemand issuedFromJson(const nlohmann::json& value);

nlohmann::json importToJson(const python::ImportStatement& statement);

python::ImportStatement importFromJson(const nlohmann::json& value);

fs::path importMemoPath(const fs::path& cacheDir, size_t bucket);

// Loads the buckets of `paths`.
void loadImportMemo(const fs::path& cacheDir, const std::vector<std::string>& paths,
                    ImportMemo& memo);

// Writes the buckets that changed; one not written is only slower next time.
void storeImportMemo(const fs::path& cacheDir, const ImportMemo& memo);

// Loads the distribution cache entry `file` of the distribution `label`: its summaries join
// the report's cached summaries, and its modules `modules` (when given). `textHash` is the
// hash of its text: when given nonzero, the entry must have that text (what a snapshot saw).
// False when there is no entry or it is damaged (a miss: the modules are read again and the
// entry rewritten).
bool loadDistributionEntry(const fs::path& file, const std::string& label,
                           std::unordered_map<std::string, CachedModule>* modules,
                           ContextReport& report, uint64_t& textHash);

// ContextReport::installedKey: each distribution reached (by its distributionKey) with the
// names of its modules the context holds (read or from the cache): a run whose installed-code
// budget left out modules another run summarised is not the same run.
std::string installedKeyOf(const std::map<std::string, std::set<std::string>>& reached);

struct Module {
  std::string name; // dotted
  ResolvedModule resolved;
  std::string origin; // installed: "name version"
  std::string text;
  bool checked = false; // a file the run names (its text is not kept here)
  bool readable = false;
  std::string readError; // why it could not be read ("cannot read: REASON")
  std::vector<python::ImportStatement> imports;
  Demand demand;           // what has been asked of it
  bool followedAll = false; // every import followed already
  size_t distribution = SIZE_MAX; // installed: index into ContextReport::distributionsRead
  const Distribution* installedBy = nullptr; // installed: its distribution, when metadata names it
  bool fromCache = false;         // its summaries and imports came from the distribution cache
  // Installed modules are followed name by name (program/definition_slices.h): the names whose
  // definitions were followed, and what that asked of other modules (for the cache).
  std::unique_ptr<DefinitionSlices> slices;
  std::set<std::string> followedNames;
  std::vector<IssuedDemand> issued;
  const CachedModule* cached = nullptr; // its entry in the distribution cache
  bool replayed = false;                // the entry's demands were made again
  std::set<std::string> targets; // the modules it asked for (its edges in the import graph)
  std::string contentKey;        // a checked file given or read: contentKeyOf its text
  std::optional<FileStat> stat;  // read from disk: its stat before the read
  // A project module: the attributes read of what each plain import binds (attributesRead),
  // asked of the module it imports when that is installed.
  std::vector<std::vector<std::string>> attributesRead;
  bool attributesScanned = false;
  // Installed: per import, whether it runs when the module is imported (importsAtModuleLevel),
  // made on first need: only those are followed into other top-level packages.
  std::vector<bool> runsAtImport;
  std::vector<bool> inDefinitions; // importsInDefinitions, with runsAtImport
  bool runsAtImportScanned = false;
  // Reached only through imports that installed functions make when called (not on the import
  // path of the checked files): read after every module of the import path, so the budget for
  // installed code goes to what importing runs first.
  bool deferred = false;
  bool readQueued = false; // handed to readAll (or about to be)
};

inline constexpr size_t kNoNode = SIZE_MAX;

// The report's counters a snapshot keeps, by the name it keeps them under.
inline constexpr std::pair<const char*, size_t ContextReport::*> kSnapshotCounts[] = {
    {"project-modules", &ContextReport::projectModules},
    {"installed-modules", &ContextReport::installedModules},
    {"stub-only", &ContextReport::stubOnly},
    {"compiled", &ContextReport::compiled},
    {"namespaces", &ContextReport::namespaces},
    {"stdlib", &ContextReport::stdlib},
    {"modelled", &ContextReport::modelled},
    {"too-large", &ContextReport::skippedTooLarge},
    {"unreadable", &ContextReport::skippedUnreadable},
    {"over-budget", &ContextReport::skippedOverBudget},
    {"cached-modules", &ContextReport::cachedModules},
    {"imports-from-memo", &ContextReport::importsFromMemo},
};

class ContextCollector {
public:
  ContextCollector(std::vector<FileInput>& checked, const ContextRequest& request,
                   ContextReport& report)
      : checked_(checked), request_(request), report_(report),
        resolver_(searchPaths(checked, request, searchFoldersTried_)) {}

  std::vector<FileInput> run();
  // Stores what run() found, with the stat of every path it looked at, in `file`, when the
  // run settled (it wrote nothing the next run would read differently) and every path's stat
  // is old enough to vouch for what was read.
  void storeSnapshot(const fs::path& file, const std::vector<FileInput>& inputs) const;
  // Every path run() looked at, once each: the search folders tried, the checked files, the
  // modules and metadata read and the folders listed. A later collection over the same roots
  // finds the same context while all of them stat as they did.
  std::vector<std::string> pathsLookedAt() const;
  int64_t startedNs() const { return startedNs_; }

private:
  // `path` made canonical (links resolved): how files named in different ways are compared.
  std::string normalPath(const fs::path& path) { return canonicalPaths_.of(path); }
  // The search paths; `tried` gets every folder considered (some may not exist).
  static std::vector<SearchPath> searchPaths(const std::vector<FileInput>& checked,
                                             const ContextRequest& request,
                                             std::vector<std::string>& tried);
  static constexpr size_t kNone = SIZE_MAX; // byName_: resolved to nothing worth reading
  // Asks for module `dotted` (`mayBeName`: it may be a name in its parent instead), imported by
  // installed code (`byInstalled`) or by the project's. `crossing`: installed code importing
  // another top-level package, followed only into code that may reach torch, and never listed
  // as unresolved (an optional dependency the environment lacks is not the project's concern).
  void demand(const std::string& dotted, const Demand& what, bool mayBeName = false,
              bool byInstalled = false, bool crossing = false, bool deferred = false);
  void follow(size_t index);
  void followInstalled(size_t index);
  // Whether installed `module`'s import `statement` may be followed: within its own top-level
  // package always, into another one only when it runs at import (at module level).
  bool followsImport(Module& module, size_t statement, const std::string& target);
  // A demand `from` makes (recorded for the distribution cache when `from` is installed).
  // `runsLater`: made by an import inside a function of installed code (Module::deferred).
  void issue(Module& from, const std::string& dotted, const Demand& what, bool mayBeName,
             bool runsLater = false);
  // Whether import `statement` of installed `module` runs when the module is imported, or
  // (`inDefinition`) sits inside a `def` or `class` instead.
  bool runsAtImport(Module& module, size_t statement, bool inDefinition = false);
  void readAll(const std::vector<size_t>& pending);
  // What the context summary cache's keys are computed from (ContextReport::summaryGraph).
  void keepSummaryGraph();
  // The distribution's entry in ContextReport::distributionsRead (its cache entry loaded).
  size_t distributionIndex(const Distribution& distribution);

  std::vector<FileInput>& checked_; // the roots: the text read of each is handed to the run
  const ContextRequest& request_;
  ContextReport& report_;
  std::vector<std::string> searchFoldersTried_; // before resolver_, which is made from them
  ModuleResolver resolver_;
  // For the snapshot: when run() started, the paths looked at besides the resolver's, and the
  // distribution cache entries used (label, file).
  int64_t startedNs_ = 0;
  std::vector<std::string> lookedAt_;
  std::vector<ContextSnapshot::CachedEntry> cachedEntries_;
  // A deque: follow() holds a module while demand() appends new ones.
  std::deque<Module> modules_;
  std::unordered_map<std::string, size_t> byName_;
  std::unordered_set<std::string> checkedFiles_; // normal paths
  std::vector<size_t> toRead_;
  std::vector<size_t> toReadLater_; // deferred modules, read once the import path is read
  std::vector<size_t> toFollow_;
  std::map<std::string, std::string> unresolved_;
  std::set<std::string> distributions_;
  size_t installedBytes_ = 0;
  std::map<std::string, size_t> distributionIndex_; // by label
  std::vector<std::unordered_map<std::string, CachedModule>> cached_; // per distribution
  std::unordered_map<std::string, size_t> rootByPath_; // the checked files' modules, by normal path
  CanonicalPaths canonicalPaths_;
};

} // namespace context_detail
} // namespace gradlint
