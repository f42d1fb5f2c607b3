#include "tool/project_context.h"

#include "checkers/python/imports.h"
#include "tool/config.h"
#include "tool/context_snapshot.h"
#include "tool/definition_slices.h"
#include "tool/discover.h"
#include "tool/file_stat.h"
#include "tool/key_hasher.h"
#include "tool/module_resolver.h"
#include "tool/read_file.h"
#include "tool/result_cache.h"
#include "tool/summary_store.h"
#include "tool/test_hooks.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <xxhash.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <deque>
#include <map>
#include <mutex>
#include <set>
#include <unordered_map>
#include <unordered_set>

namespace gradlint {
namespace {

namespace fs = std::filesystem;

// Packages modelled by the API catalogs (checkers read their calls as events): their source is
// never read.
bool isModelled(std::string_view topLevel) {
  return topLevel == "torch" || topLevel == "functorch" || topLevel == "torchgen";
}

std::string topLevelOf(const std::string& dotted) { return dotted.substr(0, dotted.find('.')); }

std::string contentKeyOf(std::string_view text) {
  return fmt::format("{:016x}", XXH3_64bits(text.data(), text.size()));
}

std::string canonicalPath(const fs::path& path) {
  std::error_code ec;
  fs::path canonical = fs::weakly_canonical(path, ec);
  if (ec) canonical = fs::absolute(path, ec).lexically_normal();
  return canonical.string();
}

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
constexpr int kDistributionEntryFormat = 2;

#ifndef GRADLINT_VERSION
#define GRADLINT_VERSION "0.0.0"
#endif

std::string distributionKey(const Distribution& distribution) {
  XXH3_state_t* state = XXH3_createState();
  XXH3_64bits_reset(state);
  auto add = [&](std::string_view part) {
    const uint64_t size = part.size();
    XXH3_64bits_update(state, &size, sizeof size);
    XXH3_64bits_update(state, part.data(), part.size());
  };
  add(GRADLINT_VERSION);
  add(std::to_string(kDistributionEntryFormat));
  std::error_code ec;
  // A rebuilt gradlint may summarise differently: its binary's stat is part of the key.
  const fs::path self = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    add(std::to_string(fs::file_size(self, ec)));
    add(std::to_string(fs::last_write_time(self, ec).time_since_epoch().count()));
  }
  add(distribution.name);
  add(distribution.version);
  std::string record;
  std::string error;
  if (readWholeFile((distribution.metadataFolder / "RECORD").string(), record, error)) {
    add(record);
  } else {
    add(std::to_string(fs::last_write_time(distribution.metadataFolder, ec).time_since_epoch().count()));
  }
  const uint64_t hash = XXH3_64bits_digest(state);
  XXH3_freeState(state);
  std::string name = distribution.name;
  for (char& c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '-') c = '_';
  }
  return fmt::format("{}-{:016x}.json", name, hash);
}

nlohmann::json issuedToJson(const IssuedDemand& issued) {
  return {{"module", issued.module}, {"names", issued.names}, {"name", issued.mayBeName}};
}

IssuedDemand issuedFromJson(const nlohmann::json& value) {
  return {value.at("module").get<std::string>(), value.at("names").get<std::vector<std::string>>(),
          value.at("name").get<bool>()};
}

nlohmann::json importToJson(const python::ImportStatement& statement) {
  return {{"level", statement.level}, {"module", statement.module}, {"names", statement.names},
          {"bound", statement.bound},  {"from", statement.isFrom},   {"line", statement.line}};
}

python::ImportStatement importFromJson(const nlohmann::json& value) {
  python::ImportStatement statement;
  statement.level = value.at("level").get<int>();
  statement.module = value.at("module").get<std::string>();
  statement.names = value.at("names").get<std::vector<std::string>>();
  statement.bound = value.at("bound").get<std::vector<std::string>>();
  statement.isFrom = value.at("from").get<bool>();
  statement.line = value.at("line").get<uint32_t>();
  return statement;
}

// The import memo (under the cache folder, `context/imports-XX.json`): each checked file's
// imports with the stat they were scanned at, so a run over unchanged files finds their imports
// without reading them (the result cache then reads only what it shows). Split into buckets by
// the path's hash: a run reads and writes only the buckets of the files it names.
constexpr int kImportMemoFormat = 3;
constexpr uint64_t kImportMemoBuckets = 64;

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

fs::path importMemoPath(const fs::path& cacheDir, size_t bucket) {
  return cacheDir / "context" / fmt::format("imports-{:02x}.json", bucket);
}

// Loads the buckets of `paths`.
void loadImportMemo(const fs::path& cacheDir, const std::vector<std::string>& paths,
                    ImportMemo& memo) {
  if (cacheDir.empty()) return;
  for (const std::string& path : paths) {
    const size_t index = ImportMemo::bucketOf(path);
    if (memo.loaded[index]) continue;
    memo.loaded[index] = 1;
    std::string text;
    std::string error;
    if (!readWholeFile(importMemoPath(cacheDir, index).string(), text, error)) continue;
    auto& bucket = memo.buckets[index];
    try {
      const nlohmann::json entry = nlohmann::json::parse(text);
      if (entry.at("format").get<int>() != kImportMemoFormat) continue;
      for (const auto& [file, row] : entry.at("files").items()) {
        ImportMemo::Entry memoEntry;
        memoEntry.stat = {row.at(0).get<int64_t>(), row.at(1).get<int64_t>(),
                          row.at(2).get<int64_t>(), row.at(3).get<uint64_t>(),
                          row.at(4).get<uint64_t>()};
        memoEntry.takenNs = row.at(5).get<int64_t>();
        for (const nlohmann::json& statement : row.at(6)) {
          memoEntry.imports.push_back(importFromJson(statement));
        }
        memoEntry.contentKey = row.at(7).get<std::string>();
        memoEntry.attributesRead = row.at(8).get<std::vector<std::vector<std::string>>>();
        bucket.emplace(file, std::move(memoEntry));
      }
    } catch (const nlohmann::json::exception&) {
      bucket.clear(); // a damaged bucket is a miss
    }
  }
}

// Writes the buckets that changed; one not written is only slower next time.
void storeImportMemo(const fs::path& cacheDir, const ImportMemo& memo) {
  std::error_code ec;
  fs::create_directories(cacheDir / "context", ec);
  if (ec) return;
  for (size_t index = 0; index < kImportMemoBuckets; ++index) {
    if (!memo.changed[index]) continue;
    nlohmann::json files = nlohmann::json::object();
    for (const auto& [path, file] : memo.buckets[index]) {
      nlohmann::json imports = nlohmann::json::array();
      for (const python::ImportStatement& statement : file.imports) {
        imports.push_back(importToJson(statement));
      }
      files[path] = {file.stat.size,  file.stat.mtimeNs, file.stat.ctimeNs, file.stat.inode,
                     file.stat.device, file.takenNs,     std::move(imports), file.contentKey,
                     file.attributesRead};
    }
    std::string error;
    replaceFile(importMemoPath(cacheDir, index),
                nlohmann::json{{"format", kImportMemoFormat}, {"files", std::move(files)}}.dump(),
                error);
  }
}

struct Module {
  std::string name; // dotted
  ResolvedModule resolved;
  std::string origin; // installed: "name version"
  std::string text;
  bool checked = false; // a file the run names (its text is not kept here)
  bool readable = false;
  std::vector<python::ImportStatement> imports;
  Demand demand;           // what has been asked of it
  bool followedAll = false; // every import followed already
  size_t distribution = SIZE_MAX; // installed: index into ContextReport::distributionsRead
  const Distribution* installedBy = nullptr; // installed: its distribution, when metadata names it
  bool fromCache = false;         // its summaries and imports came from the distribution cache
  // Installed modules are followed name by name (tool/definition_slices.h): the names whose
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
};

// The plain imports whose attributes are worth knowing: absolute ones of what the catalogs do
// not model (installed packages are among them).
std::vector<std::vector<std::string>> projectAttributesRead(
    std::string_view text, const std::vector<python::ImportStatement>& imports) {
  return attributesRead(text, imports, [](const python::ImportStatement& statement) {
    return statement.level == 0 && !isModelled(topLevelOf(statement.module));
  });
}

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

private:
  // `path` made canonical (links resolved): how files named in different ways are compared.
  std::string normalPath(const fs::path& path) { return canonicalPaths_.of(path); }
  // The search paths; `tried` gets every folder considered (some may not exist).
  static std::vector<SearchPath> searchPaths(const std::vector<FileInput>& checked,
                                             const ContextRequest& request,
                                             std::vector<std::string>& tried);
  static constexpr size_t kNone = SIZE_MAX; // byName_: resolved to nothing worth reading
  // Asks for module `dotted` (`mayBeName`: it may be a name in its parent instead), imported by
  // installed code (`byInstalled`) or by the project's.
  void demand(const std::string& dotted, const Demand& what, bool mayBeName = false,
              bool byInstalled = false);
  void follow(size_t index);
  void followInstalled(size_t index);
  // A demand `from` makes (recorded for the distribution cache when `from` is installed).
  void issue(Module& from, const std::string& dotted, const Demand& what, bool mayBeName);
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
  std::vector<size_t> toFollow_;
  std::map<std::string, std::string> unresolved_;
  std::set<std::string> distributions_;
  size_t installedBytes_ = 0;
  std::map<std::string, size_t> distributionIndex_; // by label
  std::vector<std::unordered_map<std::string, CachedModule>> cached_; // per distribution
  std::unordered_map<std::string, size_t> rootByPath_; // the checked files' modules, by normal path
  CanonicalPaths canonicalPaths_;
};

// Loads the distribution cache entry `file` of the distribution `label`: its summaries join
// the report's cached summaries, and its modules `modules` (when given). `textHash` is the
// hash of its text: when given nonzero, the entry must have that text (what a snapshot saw).
// False when there is no entry or it is damaged (a miss: the modules are read again and the
// entry rewritten).
bool loadDistributionEntry(const fs::path& file, const std::string& label,
                           std::unordered_map<std::string, CachedModule>* modules,
                           ContextReport& report, uint64_t& textHash) {
  std::string text;
  std::string error;
  if (!readWholeFile(file.string(), text, error)) return false;
  const uint64_t hash = XXH3_64bits(text.data(), text.size());
  if (textHash != 0 && hash != textHash) return false;
  textHash = hash;
  std::unordered_map<std::string, CachedModule> cached;
  auto summaries = std::make_shared<ir::SummaryTable>();
  try {
    const nlohmann::json entry = nlohmann::json::parse(text);
    if (entry.at("format").get<int>() != kDistributionEntryFormat ||
        entry.at("distribution").get<std::string>() != label ||
        !readSummaries(entry.at("summaries").dump(), *summaries, error)) {
      return false;
    }
    for (const nlohmann::json& item : entry.at("modules")) {
      CachedModule module;
      module.name = item.at("name").get<std::string>();
      module.isPackageInit = item.at("init").get<bool>();
      module.followed = item.at("followed").get<std::vector<std::string>>();
      for (const nlohmann::json& issued : item.at("issued")) {
        module.issued.push_back(issuedFromJson(issued));
      }
      cached.emplace(module.name, std::move(module));
    }
  } catch (const nlohmann::json::exception&) {
    return false;
  }
  if (!report.cachedSummaries) report.cachedSummaries = std::make_shared<ir::SummaryTable>();
  for (const auto& [name, summary] : summaries->all()) report.cachedSummaries->update(name, summary);
  report.cachedSummariesKey += file.filename().string();
  report.cachedDistributions.push_back(label);
  if (modules != nullptr) *modules = std::move(cached);
  return true;
}

size_t ContextCollector::distributionIndex(const Distribution& distribution) {
  const std::string label = distribution.label();
  auto [found, added] = distributionIndex_.try_emplace(label, report_.distributionsRead.size());
  if (!added) return found->second;
  DistributionRead read;
  read.label = label;
  std::unordered_map<std::string, CachedModule> cached;
  if (!request_.cacheDir.empty()) {
    read.cacheFile = request_.cacheDir / "distributions" / distributionKey(distribution);
    // Its key read RECORD (or the metadata folder's stat); the entry may be there or not.
    lookedAt_.push_back((distribution.metadataFolder / "RECORD").string());
    lookedAt_.push_back(distribution.metadataFolder.string());
    // The entries are gradlint's, rewritten as a run grows them: the snapshot keeps the hash of
    // the text it used (its stat, just written, would vouch for nothing yet), and that no entry
    // was there.
    uint64_t textHash = 0;
    if (loadDistributionEntry(read.cacheFile, label, &cached, report_, textHash)) {
      cachedEntries_.push_back({label, read.cacheFile.string(), textHash});
    } else {
      lookedAt_.push_back(read.cacheFile.string());
    }
  }
  report_.distributionsRead.push_back(std::move(read));
  cached_.push_back(std::move(cached));
  return found->second;
}

std::vector<SearchPath> ContextCollector::searchPaths(const std::vector<FileInput>& checked,
                                                      const ContextRequest& request,
                                                      std::vector<std::string>& tried) {
  std::vector<SearchPath> paths;
  std::unordered_set<std::string> seen;
  auto add = [&](const fs::path& folder, SearchPathKind kind) {
    std::error_code ec;
    const std::string normal = fs::absolute(folder, ec).lexically_normal().string();
    std::string key = normal;
    while (key.size() > 1 && key.back() == '/') key.pop_back();
    // Most checked files share a folder: each is looked at once.
    if (!seen.insert(key).second) return;
    tried.push_back(key);
    if (!fs::is_directory(key, ec)) return;
    paths.push_back({fs::path(key), kind});
  };
  // First party: the folder above each checked file's top package (where its module name
  // starts), then the project root and its src/ folder.
  for (const FileInput& input : checked) {
    if (!isPythonPath(input.ref.path) || input.ref.path == "-") continue;
    std::error_code ec;
    fs::path folder = fs::absolute(input.ref.path, ec).parent_path();
    const std::string& name = input.ref.moduleName;
    const size_t parts = static_cast<size_t>(std::count(name.begin(), name.end(), '.')) + 1;
    size_t climb = input.ref.isPackageInit ? parts : parts - 1;
    if (!input.ref.inPackage) climb = 0;
    for (; climb > 0 && folder.has_parent_path() && folder != folder.root_path(); --climb) {
      folder = folder.parent_path();
    }
    // A checked file of an installed package (`check site-packages/torch`): its siblings are
    // installed code, not the project's.
    const std::string folderName = folder.filename().string();
    const bool installed = folderName == "site-packages" || folderName == "dist-packages";
    add(folder, installed ? SearchPathKind::Installed : SearchPathKind::Project);
  }
  if (!request.projectRoot.empty()) {
    add(request.projectRoot, SearchPathKind::Project);
    add(request.projectRoot / "src", SearchPathKind::Project);
  }
  if (request.environment) {
    for (const SearchPath& path : request.environment->searchPaths) add(path.folder, path.kind);
  }
  return paths;
}

void ContextCollector::demand(const std::string& dotted, const Demand& what, bool mayBeName,
                              bool byInstalled) {
  if (dotted.empty()) return;
  const std::string top = topLevelOf(dotted);
  if (isModelled(top)) {
    ++report_.modelled;
    return;
  }
  auto known = byName_.find(dotted);
  if (known == byName_.end()) {
    std::string why;
    const std::optional<ResolvedModule> resolved = resolver_.resolve(dotted, &why);
    if (!resolved) {
      // `from m import x` tries m.x as a module too: x is usually a name in m.
      if (!mayBeName) unresolved_.try_emplace(dotted, why);
      byName_.emplace(dotted, kNone);
      return;
    }
    switch (resolved->kind) {
    case ModuleFileKind::StubOnly: ++report_.stubOnly; break;
    case ModuleFileKind::Compiled: ++report_.compiled; break;
    case ModuleFileKind::Namespace: ++report_.namespaces; break;
    case ModuleFileKind::Stdlib: ++report_.stdlib; break;
    case ModuleFileKind::Source: break;
    }
    if (resolved->kind != ModuleFileKind::Source) {
      byName_.emplace(dotted, kNone);
      return;
    }
    Module module;
    module.name = dotted;
    module.resolved = *resolved;
    module.checked = checkedFiles_.count(normalPath(resolved->file)) != 0;
    if (resolved->searchKind == SearchPathKind::Installed) {
      if (const Distribution* distribution =
              resolver_.distributionOf(resolved->searchPath, top)) {
        module.origin = distribution->label();
        module.distribution = distributionIndex(*distribution);
        module.installedBy = distribution;
        const auto& cached = cached_[module.distribution];
        if (const auto hit = cached.find(dotted); hit != cached.end()) {
          // Its summaries are in the entry, and what following it asks: it is not read.
          module.fromCache = true;
          module.readable = true;
          module.cached = &hit->second;
          ++report_.cachedModules;
        }
      }
    }
    known = byName_.emplace(dotted, modules_.size()).first;
    modules_.push_back(std::move(module));
    if (!modules_.back().checked && !modules_.back().fromCache) toRead_.push_back(known->second);
  }
  if (known->second == kNone) return;
  Module& module = modules_[known->second];
  // `import numpy` from the project asks for no name in particular: its __init__ is read, and
  // only what the project names is followed further (a whole installed package is rarely what
  // a project calls into, and can be large).
  Demand asked = what;
  if (!byInstalled && module.resolved.searchKind == SearchPathKind::Installed && asked.all) {
    asked = Demand();
  }
  if (module.demand.add(asked) && module.readable) toFollow_.push_back(known->second);
}

void ContextCollector::issue(Module& from, const std::string& dotted, const Demand& what,
                             bool mayBeName) {
  const bool installed = from.resolved.searchKind == SearchPathKind::Installed;
  if (installed && !from.checked) {
    from.issued.push_back({dotted, std::vector<std::string>(what.names.begin(), what.names.end()),
                           mayBeName});
  }
  from.targets.insert(dotted);
  demand(dotted, what, mayBeName, installed);
}

void ContextCollector::followInstalled(size_t index) {
  Module& module = modules_[index];
  std::set<std::string> fresh;
  for (const std::string& name : module.demand.names) {
    if (module.followedNames.count(name) == 0) fresh.insert(name);
  }
  if (fresh.empty()) return;
  if (module.fromCache) {
    const std::set<std::string> followed(module.cached->followed.begin(),
                                         module.cached->followed.end());
    if (std::includes(followed.begin(), followed.end(), fresh.begin(), fresh.end())) {
      module.followedNames.insert(fresh.begin(), fresh.end());
      if (!module.replayed) {
        module.replayed = true;
        for (const IssuedDemand& issued : module.cached->issued) {
          Demand names;
          names.names.insert(issued.names.begin(), issued.names.end());
          issue(module, issued.module, names, issued.mayBeName);
        }
      }
      return;
    }
    // Asked for more than the entry followed: read after all (its entry is rewritten).
    module.fromCache = false;
    module.readable = false;
    module.cached = nullptr;
    --report_.cachedModules;
    toRead_.push_back(index);
    return;
  }
  if (!module.slices) module.slices = std::make_unique<DefinitionSlices>(module.text, module.imports);
  module.followedNames.insert(fresh.begin(), fresh.end());
  const std::string top = topLevelOf(module.name);
  for (const ImportUse& use : module.slices->usesOf(fresh)) {
    const python::ImportStatement& statement = module.imports[use.statement];
    const std::string target =
        python::absoluteImport(statement, module.name, module.resolved.isPackageInit);
    // Installed code is followed within its own package only: what it imports from elsewhere
    // is not what the checked files call.
    if (target.empty() || topLevelOf(target) != top) continue;
    Demand attributes;
    attributes.names = use.attributes;
    if (statement.isFrom && use.name >= 0) {
      const std::string& name = statement.names[use.name];
      Demand asked;
      asked.names.insert(name);
      issue(module, target, asked, false);
      // `from pkg import sub`: a module of its own, asked for what is read of it.
      issue(module, target + "." + name, attributes, true);
    } else {
      issue(module, target, attributes, false);
    }
  }
}

void ContextCollector::follow(size_t index) {
  Module& module = modules_[index];
  if (module.followedAll) return;
  if (module.resolved.searchKind == SearchPathKind::Installed && !module.demand.all &&
      !module.checked) {
    followInstalled(index);
    return;
  }
  const bool hub = module.resolved.isPackageInit && !module.demand.all;
  module.followedAll = !hub;
  const bool installed = module.resolved.searchKind == SearchPathKind::Installed;
  if (!installed && !module.attributesScanned) {
    module.attributesScanned = true;
    module.attributesRead = projectAttributesRead(module.text, module.imports);
  }
  const std::string top = topLevelOf(module.name);
  for (const python::ImportStatement& statement : module.imports) {
    const std::string target =
        python::absoluteImport(statement, module.name, module.resolved.isPackageInit);
    if (target.empty()) continue;
    // Installed code is followed within its own package only: what it imports from elsewhere
    // is not what the checked files call.
    if (installed && topLevelOf(target) != top) continue;
    if (hub) {
      const bool binds = std::any_of(
          statement.bound.begin(), statement.bound.end(), [&](const std::string& name) {
            return (name == "*" && !module.demand.names.empty()) ||
                   module.demand.names.count(name) != 0;
          });
      if (!binds) continue;
    }
    Demand whole;
    whole.all = true;
    if (!statement.isFrom) {
      issue(module, target, whole, false);
      // An installed package imported whole is asked for what the module reads of it
      // (`import pkg as p` ... `p.Helper()`: Helper), as a from-import would.
      const size_t s = static_cast<size_t>(&statement - module.imports.data());
      if (!installed && s < module.attributesRead.size() && !module.attributesRead[s].empty()) {
        const auto found = byName_.find(target);
        // Only a package whose distribution may reach torch can change grad mode for the
        // caller: `np.zeros(...)` asks nothing of numpy (a module no metadata names may).
        const Module* imported =
            found != byName_.end() && found->second != kNone ? &modules_[found->second] : nullptr;
        if (imported != nullptr && imported->resolved.searchKind == SearchPathKind::Installed &&
            (imported->installedBy == nullptr ||
             resolver_.mayReachTorch(*imported->installedBy))) {
          Demand read;
          read.names.insert(module.attributesRead[s].begin(), module.attributesRead[s].end());
          issue(module, target, read, false);
        }
      }
      continue;
    }
    Demand names;
    bool star = false;
    for (const std::string& name : statement.names) {
      if (name == "*") {
        star = true;
      } else {
        names.names.insert(name);
        // `from pkg import sub`: a module of its own.
        issue(module, target + "." + name, whole, true);
      }
    }
    if (star) {
      // A hub's star import may bind the names asked of the hub: those are asked of it.
      if (hub) {
        names.names.insert(module.demand.names.begin(), module.demand.names.end());
      } else {
        names.all = true;
        names.names.clear();
      }
    }
    issue(module, target, names, false);
  }
}

void ContextCollector::readAll(const std::vector<size_t>& pending) {
  // Budget installed code in a fixed order (the order names were first asked for), so two runs
  // over the same files read the same modules.
  std::vector<size_t> reading;
  for (size_t index : pending) {
    Module& module = modules_[index];
    lookedAt_.push_back(module.resolved.file.string());
    std::error_code ec;
    const uintmax_t size = fs::file_size(module.resolved.file, ec);
    if (ec) {
      ++report_.skippedUnreadable;
      continue;
    }
    if (size > request_.maxModuleBytes) {
      ++report_.skippedTooLarge;
      continue;
    }
    if (module.resolved.searchKind == SearchPathKind::Installed) {
      if (installedBytes_ + size > request_.maxInstalledBytes) {
        ++report_.skippedOverBudget;
        continue;
      }
      installedBytes_ += size;
    }
    reading.push_back(index);
  }
  parallelFor(reading.size(), request_.threads, [&](size_t at) {
    Module& module = modules_[reading[at]];
    if (request_.openTexts != nullptr) {
      const auto open = request_.openTexts->find(module.resolved.file.string());
      if (open != request_.openTexts->end()) {
        module.text = open->second;
        module.readable = true;
        module.imports = python::scanImports(module.text);
        return;
      }
    }
    std::string error;
    module.stat = statFile(module.resolved.file.string()); // before the read
    if (!readWholeFile(module.resolved.file.string(), module.text, error)) return;
    module.readable = true;
    module.imports = python::scanImports(module.text);
  });
  for (size_t index : reading) {
    Module& module = modules_[index];
    if (module.readable) {
      toFollow_.push_back(index);
      if (module.distribution != SIZE_MAX) report_.distributionsRead[module.distribution].grew = true;
    } else {
      ++report_.skippedUnreadable;
    }
  }
}

} // namespace

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

namespace {

constexpr size_t kNoNode = SIZE_MAX;

void ContextCollector::keepSummaryGraph() {
  auto graph = std::make_shared<ContextGraph>();
  bool anyCandidate = false;
  graph->nodes.reserve(modules_.size());
  for (Module& module : modules_) {
    ContextGraph::Node node;
    node.name = module.name;
    node.isPackageInit = module.resolved.isPackageInit;
    node.checked = module.checked;
    node.readable = module.readable;
    node.installed = module.resolved.searchKind == SearchPathKind::Installed;
    node.fromCache = module.fromCache;
    node.file = module.resolved.file.string();
    node.origin = module.origin;
    node.contentKey = module.contentKey;
    if (module.distribution != SIZE_MAX) {
      node.distribution =
          report_.distributionsRead[module.distribution].cacheFile.filename().string();
    }
    node.targets = std::move(module.targets);
    anyCandidate = anyCandidate ||
                   (!node.checked && node.readable && !node.fromCache && !node.installed);
    graph->nodes.push_back(std::move(node));
  }
  if (!anyCandidate) return; // every module is checked or installed: nothing to cache
  graph->byName = byName_;
  graph->rootByPath = std::move(rootByPath_);
  graph->cwd = fs::current_path().string();
  report_.summaryGraph = std::move(graph);
}

// A module's summaries depend on its own text and on the summaries of what it calls, which it
// imports: its key is its text (and path) with the keys of the modules it asked for, checked
// files included (by their text's hash). Import cycles make a strongly connected component one
// unit, keyed on all of its members. The components are found with Tarjan's algorithm,
// iteratively (an import chain can be deep), and come out callees first, so each one's targets
// are keyed before it. `inputs` are the run's (each read context module's text is there).
void keySummaries(const ContextGraph& graph, const std::vector<FileInput>& inputs,
                  ContextReport& report) {
  const size_t count = graph.nodes.size();
  std::unordered_map<std::string_view, const std::string*> textOf;
  for (const FileInput& input : inputs) {
    if (input.context && input.contents) textOf.emplace(input.ref.moduleName, &*input.contents);
  }
  std::vector<std::string> own(count);
  std::vector<std::vector<size_t>> edges(count);
  std::vector<std::vector<std::string>> nowhere(count); // targets that resolve to no module
  // A module asked for that is a checked file stands for that file's root (once per module: a
  // path is made canonical with a stat per folder).
  std::vector<size_t> root(count, kNoNode);
  CanonicalPaths canonical; // as the collector made rootByPath's
  auto rootOf = [&](size_t index) {
    if (!graph.nodes[index].checked || graph.nodes[index].file.empty()) return index;
    if (root[index] == kNoNode) {
      const auto found = graph.rootByPath.find(canonical.of(graph.nodes[index].file));
      root[index] = found == graph.rootByPath.end() ? index : found->second;
    }
    return root[index];
  };
  for (size_t i = 0; i < count; ++i) {
    const ContextGraph::Node& module = graph.nodes[i];
    KeyHasher key;
    key.add(module.name);
    key.add(static_cast<uint64_t>(module.isPackageInit));
    if (module.checked) {
      key.add("checked"); // a module asked for that is a checked file has its root's edges
      key.add(module.contentKey);
      key.add(module.file);
      key.add(graph.cwd);
    } else if (!module.readable) {
      key.add("unread");
      key.add(module.file);
    } else if (!module.distribution.empty()) {
      // Installed code changes only with its distribution's entry, whose name says so (its
      // modules are not read when the entry has them).
      key.add("installed");
      key.add(module.distribution);
    } else {
      key.add("read");
      key.add(module.file);
      key.add(graph.cwd);
      key.add(module.origin);
      const auto text = textOf.find(module.name);
      key.add(text == textOf.end() ? std::string_view("(missing)") : *text->second);
    }
    own[i] = key.hex();
    for (const std::string& target : module.targets) {
      const auto found = graph.byName.find(target);
      if (found == graph.byName.end() || found->second == kNoNode) {
        nowhere[i].push_back(target);
        continue;
      }
      edges[i].push_back(rootOf(found->second));
    }
  }
  constexpr size_t kUnvisited = SIZE_MAX;
  std::vector<size_t> order(count, kUnvisited), low(count, 0), component(count, kUnvisited);
  std::vector<char> onStack(count, 0);
  std::vector<size_t> stack;
  std::vector<std::pair<size_t, size_t>> calls; // (module, next edge)
  std::vector<std::string> componentKey;
  std::vector<std::string> memberKey(count);
  size_t counter = 0;
  auto visit = [&](size_t v) {
    order[v] = low[v] = counter++;
    stack.push_back(v);
    onStack[v] = 1;
    calls.emplace_back(v, 0);
  };
  for (size_t start = 0; start < count; ++start) {
    if (order[start] != kUnvisited) continue;
    visit(start);
    while (!calls.empty()) {
      const size_t v = calls.back().first;
      if (calls.back().second < edges[v].size()) {
        const size_t w = edges[v][calls.back().second++];
        if (order[w] == kUnvisited) {
          visit(w);
        } else if (onStack[w]) {
          low[v] = std::min(low[v], order[w]);
        }
        continue;
      }
      calls.pop_back();
      if (!calls.empty()) low[calls.back().first] = std::min(low[calls.back().first], low[v]);
      if (low[v] != order[v]) continue;
      std::vector<size_t> members;
      while (true) {
        const size_t w = stack.back();
        stack.pop_back();
        onStack[w] = 0;
        component[w] = componentKey.size();
        members.push_back(w);
        if (w == v) break;
      }
      std::sort(members.begin(), members.end(), [&](size_t a, size_t b) {
        return graph.nodes[a].name < graph.nodes[b].name;
      });
      KeyHasher key;
      for (size_t m : members) {
        key.add(own[m]);
        for (size_t w : edges[m]) {
          key.add(graph.nodes[w].name);
          if (component[w] == componentKey.size()) {
            key.add("cycle"); // a member: its own key is in this one
          } else {
            key.add(componentKey[component[w]]);
          }
        }
        for (const std::string& target : nowhere[m]) {
          key.add("nowhere");
          key.add(target);
        }
      }
      componentKey.push_back(key.hex());
      for (size_t m : members) {
        KeyHasher memberHash;
        memberHash.add(componentKey.back());
        memberHash.add(graph.nodes[m].name);
        memberKey[m] = memberHash.hex();
      }
    }
  }
  // The rules read how often, and where, the checked files' functions are called: a module
  // that imports a checked file is lowered every run, so that its calls are counted. (Calls are
  // counted by the name called: through a package's re-export the name is the package's, so
  // its importers do not count.)
  std::vector<char> callsChecked(count, 0);
  for (size_t i = 0; i < count; ++i) {
    for (size_t to : edges[i]) callsChecked[i] = callsChecked[i] || graph.nodes[to].checked;
  }
  report.runModules.clear();
  report.projectSummaryKeys.clear();
  for (size_t i = 0; i < count; ++i) {
    const ContextGraph::Node& module = graph.nodes[i];
    report.runModules.push_back(module.name);
    if (module.checked || !module.readable || module.fromCache || module.installed ||
        callsChecked[i]) {
      continue;
    }
    report.projectSummaryKeys.push_back({module.name, memberKey[i], false});
  }
}

std::vector<FileInput> ContextCollector::run() {
  startedNs_ = nowNs();
  // The checked files are the roots: each is read and scanned (in parallel), and what it
  // imports is asked for whole.
  std::vector<size_t> roots;
  for (size_t i = 0; i < checked_.size(); ++i) {
    if (!isPythonPath(checked_[i].ref.path) && checked_[i].ref.path != "-") continue;
    if (checked_[i].ref.path != "-") checkedFiles_.insert(normalPath(checked_[i].ref.path));
    roots.push_back(i);
  }
  std::vector<std::vector<python::ImportStatement>> rootImports(roots.size());
  ImportMemo memo;
  {
    std::vector<std::string> paths;
    for (size_t index : roots) {
      if (!checked_[index].contents) paths.push_back(checked_[index].ref.path);
    }
    loadImportMemo(request_.cacheDir, paths, memo);
  }
  std::vector<std::optional<ImportMemo::Entry>> scanned(roots.size()); // to remember
  std::vector<std::string> rootContentKeys(roots.size());
  std::vector<std::vector<std::vector<std::string>>> rootAttributes(roots.size());
  const int64_t takenNs = nowNs();
  parallelFor(roots.size(), request_.threads, [&](size_t at) {
    FileInput& input = checked_[roots[at]];
    if (input.contents) {
      rootImports[at] = python::scanImports(*input.contents);
      rootContentKeys[at] = contentKeyOf(*input.contents);
      rootAttributes[at] = projectAttributesRead(*input.contents, rootImports[at]);
      return;
    }
    std::optional<FileStat> stat;
    if (!request_.cacheDir.empty()) {
      stat = statFile(input.ref.path); // before the read: a later write changes it
      const ImportMemo::Entry* known = memo.find(input.ref.path);
      if (stat && known != nullptr && known->stat == *stat &&
          statTrusted(*stat, known->takenNs)) {
        rootImports[at] = known->imports;
        rootContentKeys[at] = known->contentKey;
        rootAttributes[at] = known->attributesRead;
        return;
      }
    }
    std::string text;
    std::string error;
    deleteBeforeReadHook(input.ref.path);
    if (!readWholeFile(input.ref.path, text, error)) return; // the run reports it
    rootImports[at] = python::scanImports(text);
    input.contents = std::move(text); // read once: the run checks these bytes
    input.contentsStat = stat;
    rootContentKeys[at] = contentKeyOf(*input.contents);
    rootAttributes[at] = projectAttributesRead(*input.contents, rootImports[at]);
    if (stat) {
      scanned[at] = ImportMemo::Entry{*stat, takenNs, rootImports[at], rootContentKeys[at],
                                      rootAttributes[at]};
    }
  });
  bool memoChanged = false;
  for (size_t at = 0; at < roots.size(); ++at) {
    if (!scanned[at]) {
      if (!checked_[roots[at]].contents) ++report_.importsFromMemo;
      continue;
    }
    const std::string& path = checked_[roots[at]].ref.path;
    memo.buckets[ImportMemo::bucketOf(path)][path] = std::move(*scanned[at]);
    memo.changed[ImportMemo::bucketOf(path)] = 1;
    memoChanged = true;
  }
  if (memoChanged) storeImportMemo(request_.cacheDir, memo);
  for (size_t at = 0; at < roots.size(); ++at) {
    Module root;
    root.name = checked_[roots[at]].ref.moduleName;
    root.resolved.isPackageInit = checked_[roots[at]].ref.isPackageInit;
    root.resolved.searchKind = SearchPathKind::Project;
    root.checked = true;
    root.readable = true;
    root.imports = std::move(rootImports[at]);
    root.attributesRead = std::move(rootAttributes[at]);
    root.attributesScanned = true;
    root.demand.all = true;
    // Its path too: the summaries of its importers name toggles inside it by that path.
    root.contentKey = rootContentKeys[at] + ":" + checked_[roots[at]].ref.path;
    if (checked_[roots[at]].ref.path != "-") {
      rootByPath_.emplace(normalPath(checked_[roots[at]].ref.path), modules_.size());
    }
    modules_.push_back(std::move(root));
    follow(modules_.size() - 1);
  }
  // Breadth first: read what was asked for (in parallel), follow its imports, repeat. A module
  // is read once whatever the cycles; a hub asked for more names is followed again.
  while (!toRead_.empty() || !toFollow_.empty()) {
    std::vector<size_t> reading = std::move(toRead_);
    toRead_.clear();
    readAll(reading);
    std::vector<size_t> following = std::move(toFollow_);
    toFollow_.clear();
    for (size_t index : following) follow(index);
  }
  // The distribution cache's entries: what they held, with what this run followed or read.
  for (size_t d = 0; d < report_.distributionsRead.size(); ++d) {
    std::map<std::string, CachedModule> entry;
    for (const auto& [name, module] : cached_[d]) entry.emplace(name, module);
    for (const Module& module : modules_) {
      if (module.distribution != d || !module.readable) continue;
      CachedModule& kept = entry[module.name];
      kept.name = module.name;
      kept.isPackageInit = module.resolved.isPackageInit;
      if (module.fromCache) continue; // as the entry had it
      kept.followed.assign(module.followedNames.begin(), module.followedNames.end());
      kept.issued = module.issued;
    }
    report_.distributionsRead[d].modules.clear();
    for (auto& [name, module] : entry) {
      report_.distributionsRead[d].modules.push_back(std::move(module));
    }
  }

  if (!request_.cacheDir.empty()) {
    report_.contextSummaryDir = request_.cacheDir / "context" / "summaries";
    keepSummaryGraph();
  }

  std::vector<FileInput> inputs;
  const fs::path cwd = fs::current_path();
  for (Module& module : modules_) {
    if (module.checked || !module.readable || module.fromCache) continue;
    FileInput input;
    const bool installed = module.resolved.searchKind == SearchPathKind::Installed;
    if (installed) {
      input.ref.path = module.resolved.relativePath;
      input.origin = module.origin;
      ++report_.installedModules;
      if (!module.origin.empty()) distributions_.insert(module.origin);
    } else {
      const fs::path relative = module.resolved.file.lexically_relative(cwd);
      input.ref.path = !relative.empty() && !relative.string().starts_with("..")
                           ? relative.string()
                           : module.resolved.file.string();
      ++report_.projectModules;
    }
    input.ref.moduleName = module.name;
    input.ref.isPackageInit = module.resolved.isPackageInit;
    input.ref.inPackage =
        module.resolved.isPackageInit || module.name.find('.') != std::string::npos;
    input.contents = std::move(module.text);
    input.contentsStat = module.stat;
    input.context = true;
    inputs.push_back(std::move(input));
  }
  std::sort(inputs.begin(), inputs.end(), [](const FileInput& a, const FileInput& b) {
    return a.ref.moduleName < b.ref.moduleName;
  });
  report_.distributions.assign(distributions_.begin(), distributions_.end());
  report_.unresolved.assign(unresolved_.begin(), unresolved_.end());
  return inputs;
}

// The report's counters a snapshot keeps, by the name it keeps them under.
constexpr std::pair<const char*, size_t ContextReport::*> kSnapshotCounts[] = {
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

void ContextCollector::storeSnapshot(const fs::path& file,
                                     const std::vector<FileInput>& inputs) const {
  // A run that read installed modules writes their distribution's entry after the analysis:
  // the next run reads that entry instead, and stores the snapshot.
  for (const DistributionRead& read : report_.distributionsRead) {
    if (read.grew) return;
  }
  std::vector<std::string> paths = searchFoldersTried_;
  for (const FileInput& input : checked_) {
    if (isPythonPath(input.ref.path)) paths.push_back(input.ref.path);
  }
  paths.insert(paths.end(), lookedAt_.begin(), lookedAt_.end());
  resolver_.pathsLookedAt(paths);
  std::unordered_set<std::string_view> once;
  std::vector<std::string> unique;
  for (const std::string& path : paths) {
    if (once.insert(path).second) unique.push_back(path);
  }
  std::optional<std::vector<std::pair<std::string, std::optional<FileStat>>>> seen =
      statForSnapshot(unique, startedNs_);
  if (!seen) return; // something changed just before or during the run: not remembered yet
  ContextSnapshot snapshot;
  snapshot.takenNs = startedNs_;
  snapshot.seen = std::move(*seen);
  for (const FileInput& input : inputs) {
    snapshot.inputs.push_back({input.ref.path, input.ref.moduleName, input.origin,
                               input.ref.isPackageInit, input.ref.inPackage});
  }
  for (const auto& [name, field] : kSnapshotCounts) snapshot.counts[name] = report_.*field;
  snapshot.unresolved = report_.unresolved;
  snapshot.distributions = report_.distributions;
  snapshot.cachedEntries = cachedEntries_;
  writeContextSnapshot(file, snapshot); // one not written is only slower next time
}

// The snapshot's name: everything a collection depends on besides the paths it looks at.
std::string snapshotKey(const std::vector<FileInput>& checked, const ContextRequest& request) {
  KeyHasher key;
  key.add("context snapshot 1");
  addBuildIdentity(key);
  key.add(fs::current_path().string());
  key.add(request.projectRoot.string());
  key.add(static_cast<uint64_t>(request.maxModuleBytes));
  key.add(static_cast<uint64_t>(request.maxInstalledBytes));
  key.add(static_cast<uint64_t>(request.environment.has_value()));
  if (request.environment) {
    for (const SearchPath& path : request.environment->searchPaths) {
      key.add(path.folder.string());
      key.add(static_cast<uint64_t>(path.kind));
    }
  }
  key.add(static_cast<uint64_t>(checked.size()));
  for (const FileInput& input : checked) {
    key.add(input.ref.path);
    key.add(input.ref.moduleName);
    key.add(static_cast<uint64_t>(input.ref.isPackageInit) << 1 |
            static_cast<uint64_t>(input.ref.inPackage));
  }
  return key.hex();
}

// The context `snapshot` records, when it still holds: the context modules (without their
// text) and the report's counts. Nullopt when a path changed or an entry it used cannot be
// loaded.
std::optional<std::vector<FileInput>> replaySnapshot(const ContextSnapshot& snapshot,
                                                     ContextReport& report) {
  if (!contextSnapshotHolds(snapshot)) return std::nullopt;
  ContextReport replayed;
  replayed.projectRoot = report.projectRoot;
  replayed.environment = report.environment;
  replayed.projectRootFoundBy = report.projectRootFoundBy;
  for (const ContextSnapshot::CachedEntry& entry : snapshot.cachedEntries) {
    uint64_t textHash = entry.textHash;
    if (!loadDistributionEntry(entry.file, entry.label, nullptr, replayed, textHash)) {
      return std::nullopt;
    }
  }
  for (const auto& [name, field] : kSnapshotCounts) {
    const auto found = snapshot.counts.find(name);
    if (found == snapshot.counts.end()) return std::nullopt;
    replayed.*field = found->second;
  }
  replayed.unresolved = snapshot.unresolved;
  replayed.distributions = snapshot.distributions;
  replayed.fromSnapshot = true;
  replayed.snapshotPaths = snapshot.seen.size();
  std::vector<FileInput> inputs;
  inputs.reserve(snapshot.inputs.size());
  for (const ContextSnapshot::Input& module : snapshot.inputs) {
    FileInput input;
    input.ref.path = module.path;
    input.ref.moduleName = module.moduleName;
    input.ref.isPackageInit = module.isPackageInit;
    input.ref.inPackage = module.inPackage;
    input.origin = module.origin;
    input.context = true;
    inputs.push_back(std::move(input));
  }
  report = std::move(replayed);
  return inputs;
}

} // namespace

std::optional<fs::path> findProjectRoot(const fs::path& path, std::string* marker) {
  std::error_code ec;
  fs::path at = fs::absolute(path, ec).lexically_normal();
  if (!fs::is_directory(at, ec)) at = at.parent_path();
  static constexpr const char* kMarkers[] = {"pyproject.toml", "gradlint.toml", "setup.cfg",
                                             "setup.py", ".git"};
  while (!at.empty()) {
    for (const char* name : kMarkers) {
      if (fs::exists(at / name, ec)) {
        if (marker != nullptr) *marker = name;
        return at;
      }
    }
    if (at == at.parent_path()) break;
    at = at.parent_path();
  }
  return std::nullopt;
}

std::vector<FileInput> collectContext(std::vector<FileInput>& checked,
                                      const ContextRequest& request, ContextReport& report) {
  const auto start = std::chrono::steady_clock::now();
  report.projectRoot = request.projectRoot;
  report.environment = request.environment;
  // A snapshot serves the files on disk: not a buffer or stdin.
  const bool snapshot =
      request.snapshot && !request.cacheDir.empty() &&
      (request.openTexts == nullptr || request.openTexts->empty()) &&
      std::none_of(checked.begin(), checked.end(), [](const FileInput& input) {
        return input.contents.has_value() || input.ref.path == "-";
      });
  fs::path snapshotFile;
  if (snapshot) {
    snapshotFile = request.cacheDir / "context" /
                   ("collection-" + snapshotKey(checked, request) + ".txt");
    if (const std::optional<ContextSnapshot> stored = readContextSnapshot(snapshotFile)) {
      if (std::optional<std::vector<FileInput>> context = replaySnapshot(*stored, report)) {
        report.contextSummaryDir = request.cacheDir / "context" / "summaries";
        report.seconds =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        return std::move(*context);
      }
    }
  }
  ContextCollector collector(checked, request, report);
  std::vector<FileInput> context = collector.run();
  if (snapshot) collector.storeSnapshot(snapshotFile, context);
  report.seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return context;
}

bool addProgramContext(const ContextSettings& settings, std::vector<FileInput>& inputs,
                       ContextReport& report) {
  if (!settings.enabled) return false;
  const std::string first =
      settings.paths.empty() || settings.paths.front() == "-" ? "." : settings.paths.front();
  // The configuration that governs the first path names the environment and the root.
  ConfigResolver configs(settings.configPath.empty()
                             ? std::nullopt
                             : std::optional<std::string>(settings.configPath));
  std::error_code ec;
  const fs::path firstPath = fs::absolute(first, ec).lexically_normal();
  const std::shared_ptr<const Settings> config = fs::is_directory(firstPath, ec)
                                                     ? configs.settingsForFile(firstPath / "x.py")
                                                     : configs.settingsForFile(firstPath);
  if (config->context && !*config->context && settings.python.empty()) return false;
  ContextRequest request;
  request.threads = settings.threads;
  request.openTexts = &settings.openTexts;
  request.cacheDir = settings.cacheDir;
  request.snapshot = settings.snapshot;
  if (!settings.projectRoot.empty() || config->projectRoot) {
    const bool fromCommandLine = !settings.projectRoot.empty();
    const std::string root = fromCommandLine ? settings.projectRoot : *config->projectRoot;
    if (!fs::is_directory(root, ec)) {
      throw EnvironmentError(fmt::format(
          "{} `{}`: not a folder",
          fromCommandLine ? "--project-root" : "project-root (" + config->configPath + ")", root));
    }
    request.projectRoot = fs::absolute(root, ec).lexically_normal();
    report.projectRootFoundBy =
        fromCommandLine ? "--project-root" : "project-root in " + config->configPath;
  } else if (std::optional<fs::path> root = findProjectRoot(firstPath, &report.projectRootFoundBy)) {
    request.projectRoot = *root;
  }
  EnvironmentRequest environment;
  environment.projectRoot = request.projectRoot;
  if (!settings.python.empty()) {
    environment.python = settings.python;
  } else if (config->python) {
    environment.python = *config->python;
    environment.pythonFrom = "python (" + config->configPath + ")";
  }
  request.environment = findPythonEnvironment(environment);
  std::vector<FileInput> context = collectContext(inputs, request, report);
  // Context modules run the run's selection: their summaries serve the checked files' rules.
  for (FileInput& input : context) inputs.push_back(std::move(input));
  return true;
}

std::string storeDistributionSummaries(const ContextReport& report,
                                       const ir::SummaryTable& summaries) {
  std::string warning;
  for (const DistributionRead& read : report.distributionsRead) {
    if (!read.grew || read.cacheFile.empty()) continue;
    std::vector<std::string> modules;
    nlohmann::json list = nlohmann::json::array();
    std::vector<const CachedModule*> ordered;
    for (const CachedModule& module : read.modules) ordered.push_back(&module);
    std::sort(ordered.begin(), ordered.end(),
              [](const CachedModule* a, const CachedModule* b) { return a->name < b->name; });
    for (const CachedModule* module : ordered) {
      nlohmann::json issued = nlohmann::json::array();
      for (const IssuedDemand& demand : module->issued) issued.push_back(issuedToJson(demand));
      list.push_back({{"name", module->name},
                      {"init", module->isPackageInit},
                      {"followed", module->followed},
                      {"issued", std::move(issued)}});
      modules.push_back(module->name);
    }
    auto own = [&](const std::string& name) {
      return std::any_of(modules.begin(), modules.end(), [&](const std::string& module) {
        return name == module || (name.size() > module.size() && name.starts_with(module) &&
                                  name[module.size()] == '.');
      });
    };
    auto same = [](const std::string& path) { return path; };
    nlohmann::json entry = {{"format", kDistributionEntryFormat},
                            {"distribution", read.label},
                            {"modules", std::move(list)},
                            {"summaries", nlohmann::json::parse(
                                              summariesToText(summaries, own, same))}};
    std::error_code ec;
    fs::create_directories(read.cacheFile.parent_path(), ec);
    std::string error;
    if (ec || !replaceFile(read.cacheFile, entry.dump() + "\n", error)) {
      warning = fmt::format("cannot cache the summaries of {} in {}: {}", read.label,
                            read.cacheFile.parent_path().string(),
                            ec ? ec.message() : error);
    }
  }
  return warning;
}

// The context summary cache's entries (`context/summaries/KEY.json`): one per context module of
// the project, holding its summaries. The key joins the module's (keySummaries) with what else
// decides them: this gradlint, the rule selection and the summaries given with --summaries.
constexpr int kContextSummaryFormat = 1;

std::optional<std::vector<FileInput>> useCachedContextSummaries(
    const std::vector<FileInput>& inputs, CheckOptions& options, ContextReport& report) {
  if (report.contextSummaryDir.empty() || !report.summaryGraph) return std::nullopt;
  keySummaries(*report.summaryGraph, inputs, report);
  if (report.projectSummaryKeys.empty()) return std::nullopt;
  KeyHasher settings;
  settings.add(static_cast<uint64_t>(kContextSummaryFormat));
  addAnalysisSettings(settings, options);
  const std::string settingsKey = settings.hex();
  std::shared_ptr<ir::SummaryTable> known;
  std::unordered_set<std::string> cached;
  for (ContextReport::ProjectSummaryKey& entry : report.projectSummaryKeys) {
    KeyHasher key;
    key.add(settingsKey);
    key.add(entry.key);
    entry.key = key.hex();
    std::string text;
    std::string error;
    if (!readWholeFile((report.contextSummaryDir / (entry.key + ".json")).string(), text,
                       error)) {
      continue;
    }
    ir::SummaryTable summaries;
    try {
      const nlohmann::ordered_json stored = nlohmann::ordered_json::parse(text);
      if (stored.at("format").get<int>() != kContextSummaryFormat ||
          stored.at("module").get<std::string>() != entry.module ||
          !readSummaries(stored.at("summaries"), summaries, error)) {
        continue;
      }
    } catch (const nlohmann::json::exception&) {
      continue; // a damaged entry is a miss: the module is summarised and the entry rewritten
    }
    if (!known) {
      known = options.knownSummaries ? std::make_shared<ir::SummaryTable>(*options.knownSummaries)
                                     : std::make_shared<ir::SummaryTable>();
    }
    for (const auto& [name, summary] : summaries.all()) known->update(name, summary);
    entry.fromCache = true;
    cached.insert(entry.module);
    options.knownSummariesKey += entry.key;
  }
  if (known) options.knownSummaries = std::move(known);
  report.projectFromCache = cached.size();
  if (cached.empty()) return std::nullopt;
  std::vector<FileInput> kept;
  kept.reserve(inputs.size() - cached.size());
  for (const FileInput& input : inputs) {
    if (!input.context || !input.origin.empty() || cached.count(input.ref.moduleName) == 0) {
      kept.push_back(input);
    }
  }
  return kept;
}

std::string storeContextSummaries(const ContextReport& report, const ir::SummaryTable& summaries,
                                  unsigned threads) {
  if (report.contextSummaryDir.empty()) return "";
  std::unordered_map<std::string, ir::SummaryTable> byModule;
  for (const ContextReport::ProjectSummaryKey& entry : report.projectSummaryKeys) {
    if (!entry.fromCache) byModule.try_emplace(entry.module);
  }
  if (byModule.empty()) return "";
  // A summary belongs to the longest module of the run that prefixes its name
  // (`pkg.helpers.Cls.__init__` to `pkg.helpers`, not to the package `pkg`).
  const std::unordered_set<std::string> modules(report.runModules.begin(), report.runModules.end());
  for (const auto& [name, summary] : summaries.all()) {
    size_t end = name.size();
    while (true) {
      const std::string prefix = name.substr(0, end);
      if (modules.count(prefix) != 0) {
        if (const auto owner = byModule.find(prefix); owner != byModule.end()) {
          owner->second.update(name, summary);
        }
        break;
      }
      end = name.rfind('.', end - 1);
      if (end == std::string::npos || end == 0) break;
    }
  }
  std::error_code ec;
  fs::create_directories(report.contextSummaryDir, ec);
  if (ec) {
    return fmt::format("cannot cache context summaries in {}: {}",
                       report.contextSummaryDir.string(), ec.message());
  }
  auto all = [](const std::string&) { return true; };
  auto same = [](const std::string& path) { return path; };
  std::vector<const ContextReport::ProjectSummaryKey*> writing;
  for (const ContextReport::ProjectSummaryKey& entry : report.projectSummaryKeys) {
    if (!entry.fromCache) writing.push_back(&entry);
  }
  // Many small files after an edit to a module most others import: written in parallel.
  std::mutex failedLock;
  std::string failed;
  parallelFor(writing.size(), threads, [&](size_t at) {
    const ContextReport::ProjectSummaryKey& entry = *writing[at];
    // The summary file's text inside a small object, written as text (no second parse).
    const std::string stored =
        fmt::format("{{\"format\":{},\"module\":{},\"summaries\":{}}}\n", kContextSummaryFormat,
                    nlohmann::json(entry.module).dump(),
                    summariesToText(byModule.at(entry.module), all, same));
    std::string error;
    if (!replaceFile(report.contextSummaryDir / (entry.key + ".json"), stored, error)) {
      const std::lock_guard<std::mutex> hold(failedLock);
      failed = fmt::format("cannot cache context summaries in {}: {}",
                           report.contextSummaryDir.string(), error);
    }
  });
  return failed;
}

} // namespace gradlint
