// ContextCollector: follows the checked files' imports through the project and the installed
// packages.
#include "program/context_collector.h"

#include "checkers/python/imports.h"
#include "program/config.h"
#include "program/context_snapshot.h"
#include "program/definition_slices.h"
#include "program/discover.h"
#include "program/file_stat.h"
#include "program/key_hasher.h"
#include "program/module_resolver.h"
#include "program/read_file.h"
#include "program/result_cache.h"
#include "program/summary_store.h"
#include "program/test_hooks.h"

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

namespace gradlint::context_detail {

// A size as --show-context says it: "50.0 MiB", "812 KiB", "97 bytes".
std::string byteCount(uintmax_t bytes) {
  if (bytes >= (1u << 20)) {
    return fmt::format("{:.1f} MiB", static_cast<double>(bytes) / (1u << 20));
  }
  if (bytes >= (1u << 10)) return fmt::format("{} KiB", bytes >> 10);
  return fmt::format("{} bytes", bytes);
}

// The plain imports whose attributes are worth knowing: absolute ones of what the catalogs do
// not model (installed packages are among them).
std::vector<std::vector<std::string>> projectAttributesRead(
    std::string_view text, const std::vector<python::ImportStatement>& imports) {
  return attributesRead(text, imports, [](const python::ImportStatement& statement) {
    return statement.level == 0 && !isModelled(topLevelOf(statement.module));
  });
}

} // namespace gradlint::context_detail

namespace gradlint {

std::string contextDemandKey(std::string_view text) {
  using namespace context_detail;
  const std::vector<python::ImportStatement> imports = python::scanImports(text);
  KeyHasher key;
  key.add(static_cast<uint64_t>(imports.size()));
  for (const python::ImportStatement& statement : imports) {
    key.add(static_cast<uint64_t>(statement.level) << 1 | static_cast<uint64_t>(statement.isFrom));
    key.add(statement.module);
    key.add(static_cast<uint64_t>(statement.names.size()));
    for (const std::string& name : statement.names) key.add(name);
  }
  for (const std::vector<std::string>& attributes : projectAttributesRead(text, imports)) {
    key.add(static_cast<uint64_t>(attributes.size()));
    for (const std::string& attribute : attributes) key.add(attribute);
  }
  return key.hex();
}

} // namespace gradlint

namespace gradlint::context_detail {

size_t ContextCollector::distributionIndex(const Distribution& distribution) {
  const std::string label = distribution.label();
  auto [found, added] = distributionIndex_.try_emplace(label, report_.distributionsRead.size());
  if (!added) return found->second;
  DistributionRead read;
  read.label = label;
  read.key = distributionKey(distribution);
  std::unordered_map<std::string, CachedModule> cached;
  if (!request_.cacheDir.empty()) {
    read.cacheFile = request_.cacheDir / "distributions" / read.key;
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
                              bool byInstalled, bool crossing, bool deferred) {
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
      if (mayBeName || crossing) {
      } else if (resolver_.isUnreadStandardLibrary(dotted)) {
        ++report_.stdlib; // not read, like the rest of the standard library
      } else {
        unresolved_.try_emplace(dotted, why);
      }
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
    const Distribution* installedBy = resolved->searchKind == SearchPathKind::Installed
                                          ? resolver_.distributionOf(resolved->searchPath, top)
                                          : nullptr;
    // Another distribution's code that cannot import torch cannot change grad mode: not read
    // for installed code that imports it (not remembered either: the project may ask for it).
    if (crossing && installedBy != nullptr && !resolver_.mayReachTorch(*installedBy)) return;
    Module module;
    module.name = dotted;
    module.resolved = *resolved;
    module.checked = checkedFiles_.count(normalPath(resolved->file)) != 0;
    if (resolved->searchKind == SearchPathKind::Installed) {
      if (const Distribution* distribution = installedBy) {
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
    module.deferred = deferred;
    known = byName_.emplace(dotted, modules_.size()).first;
    modules_.push_back(std::move(module));
    Module& added = modules_.back();
    if (!added.checked && !added.fromCache) {
      added.readQueued = !deferred;
      (deferred ? toReadLater_ : toRead_).push_back(known->second);
    }
  }
  if (known->second == kNone) return;
  Module& module = modules_[known->second];
  if (!deferred && module.deferred) {
    // Now on the import path: read with it, not after it.
    module.deferred = false;
    if (!module.readQueued && !module.checked && !module.fromCache) {
      module.readQueued = true;
      toRead_.push_back(known->second);
    }
  }
  // `import numpy` from the project asks for no name in particular: its __init__ is read, and
  // only what the project names is followed further (a whole installed package is rarely what
  // a project calls into, and can be large).
  Demand asked = what;
  if ((!byInstalled || crossing) && module.resolved.searchKind == SearchPathKind::Installed &&
      asked.all) {
    asked = Demand();
  }
  // Whatever is asked of it, importing a module runs its top level (and the imports there):
  // asked for too, unless it is installed code that cannot reach torch (it cannot change grad
  // mode, whatever it runs).
  const bool reachesTorch = module.resolved.searchKind != SearchPathKind::Installed ||
                            module.installedBy == nullptr ||
                            resolver_.mayReachTorch(*module.installedBy);
  if (!asked.all && reachesTorch) asked.names.emplace(kTopLevelName);
  if (module.demand.add(asked) && module.readable) toFollow_.push_back(known->second);
}

void ContextCollector::issue(Module& from, const std::string& dotted, const Demand& what,
                             bool mayBeName, bool runsLater) {
  const bool deferred = from.deferred || runsLater;
  const bool installed = from.resolved.searchKind == SearchPathKind::Installed;
  if (installed && !from.checked) {
    from.issued.push_back({dotted, std::vector<std::string>(what.names.begin(), what.names.end()),
                           mayBeName});
  }
  from.targets.insert(dotted);
  const bool crossing = installed && topLevelOf(dotted) != topLevelOf(from.name);
  // `import a.b.c` runs `a/__init__.py`, then `a/b/__init__.py`, before `a/b/c.py`: the packages
  // above are asked for their top level, first (the budget reads them before the module). A
  // package above the importing module itself is running already (Python imported it first).
  // `mayBeName`: `m.x` of `from m import x`, whose parent `m` was asked for on its own.
  if (!mayBeName) {
    for (size_t dot = dotted.find('.'); dot != std::string::npos; dot = dotted.find('.', dot + 1)) {
      const std::string parent = dotted.substr(0, dot);
      if (from.name.starts_with(parent) &&
          (from.name.size() == parent.size() || from.name[parent.size()] == '.')) {
        continue;
      }
      from.targets.insert(parent);
      demand(parent, Demand(), false, installed, crossing, deferred);
    }
  }
  demand(dotted, what, mayBeName, installed, crossing, deferred);
}

bool ContextCollector::runsAtImport(Module& module, size_t statement, bool inDefinition) {
  if (!module.runsAtImportScanned) {
    module.runsAtImportScanned = true;
    module.runsAtImport = importsAtModuleLevel(module.text, module.imports);
    module.inDefinitions = importsInDefinitions(module.text, module.imports);
  }
  const std::vector<bool>& place = inDefinition ? module.inDefinitions : module.runsAtImport;
  return statement < place.size() && place[statement];
}

bool ContextCollector::followsImport(Module& module, size_t statement, const std::string& target) {
  if (target.empty()) return false;
  if (topLevelOf(target) == topLevelOf(module.name)) return true;
  // Another top-level package (of this distribution or another): what the module's import runs
  // is part of the import chain; what only its functions import is not what the checked files
  // call.
  return runsAtImport(module, statement);
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
    module.readQueued = true;
    toRead_.push_back(index);
    return;
  }
  if (!module.slices)
    module.slices = std::make_unique<DefinitionSlices>(module.text, module.imports);
  module.followedNames.insert(fresh.begin(), fresh.end());
  for (const ImportUse& use : module.slices->usesOf(fresh)) {
    const python::ImportStatement& statement = module.imports[use.statement];
    const std::string target =
        python::absoluteImport(statement, module.name, module.resolved.isPackageInit);
    if (!followsImport(module, use.statement, target)) continue;
    // An import inside a function runs when it is called; one under `if TYPE_CHECKING:` of a
    // lazy package, when the name it binds is asked for (now).
    const bool later = runsAtImport(module, use.statement, true);
    Demand attributes;
    attributes.names = use.attributes;
    if (statement.isFrom && use.name >= 0) {
      const std::string& name = statement.names[use.name];
      Demand asked;
      asked.names.insert(name);
      issue(module, target, asked, false, later);
      // `from pkg import sub`: a module of its own, asked for what is read of it.
      issue(module, target + "." + name, attributes, true, later);
    } else {
      issue(module, target, attributes, false, later);
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
  // A hub's module-level imports run when it is imported, whatever names are asked of it: the
  // modules they import are asked for their top level (`from . import _setup` in
  // `pkg/__init__.py`, whose top level may disable grad mode).
  std::vector<bool> atModuleLevel;
  if (hub) atModuleLevel = importsAtModuleLevel(module.text, module.imports);
  const bool asksForNames =
      std::any_of(module.demand.names.begin(), module.demand.names.end(),
                  [](const std::string& name) { return name != kTopLevelName; });
  for (const python::ImportStatement& statement : module.imports) {
    const std::string target =
        python::absoluteImport(statement, module.name, module.resolved.isPackageInit);
    if (target.empty()) continue;
    const size_t at = static_cast<size_t>(&statement - module.imports.data());
    if (installed && !followsImport(module, at, target)) continue;
    if (hub) {
      const bool binds = std::any_of(
          statement.bound.begin(), statement.bound.end(), [&](const std::string& name) {
            return (name == "*" && asksForNames) || module.demand.names.count(name) != 0;
          });
      if (!binds && at < atModuleLevel.size() && atModuleLevel[at]) {
        Demand topLevel;
        topLevel.names.emplace(kTopLevelName);
        issue(module, target, topLevel, false);
        for (const std::string& name : statement.names) {
          if (statement.isFrom && name != "*") issue(module, target + "." + name, topLevel, true);
        }
      }
      if (!binds) continue;
    }
    Demand whole;
    whole.all = true;
    if (!statement.isFrom) {
      issue(module, target, whole, false);
      // An installed package imported whole is asked for what the module reads of it
      // (`import pkg as p` ... `p.Helper()`: Helper), as a from-import would.
      if (!installed && at < module.attributesRead.size() && !module.attributesRead[at].empty()) {
        const auto found = byName_.find(target);
        // Only a package whose distribution may reach torch can change grad mode for the
        // caller: `np.zeros(...)` asks nothing of numpy (a module no metadata names may).
        const Module* imported =
            found != byName_.end() && found->second != kNone ? &modules_[found->second] : nullptr;
        if (imported != nullptr && imported->resolved.searchKind == SearchPathKind::Installed &&
            (imported->installedBy == nullptr ||
             resolver_.mayReachTorch(*imported->installedBy))) {
          Demand read;
          read.names.insert(module.attributesRead[at].begin(), module.attributesRead[at].end());
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
    const std::string& path = lookedAt_.back();
    if (ec) {
      ++report_.skippedUnreadable;
      report_.skipped.emplace_back(path, "cannot read: " + ec.message());
      continue;
    }
    if (size > request_.maxModuleBytes) {
      ++report_.skippedTooLarge;
      report_.skipped.emplace_back(
          path, fmt::format("{}, over the limit of {} for one module", byteCount(size),
                            byteCount(request_.maxModuleBytes)));
      continue;
    }
    if (module.resolved.searchKind == SearchPathKind::Installed) {
      if (installedBytes_ + size > request_.maxInstalledBytes) {
        ++report_.skippedOverBudget;
        report_.skipped.emplace_back(
            path, fmt::format("{}: the run had read {} of installed code, and reads at most {}",
                              byteCount(size), byteCount(installedBytes_),
                              byteCount(request_.maxInstalledBytes)));
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
    if (!readWholeFile(module.resolved.file.string(), module.text, error)) {
      module.readError = error;
      return;
    }
    module.readable = true;
    module.imports = python::scanImports(module.text);
  });
  for (size_t index : reading) {
    Module& module = modules_[index];
    if (module.readable) {
      toFollow_.push_back(index);
      if (module.distribution != SIZE_MAX)
        report_.distributionsRead[module.distribution].grew = true;
    } else {
      ++report_.skippedUnreadable;
      report_.skipped.emplace_back(module.resolved.file.string(), module.readError);
    }
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
  std::vector<char> readHere(roots.size(), 0); // not answered by the import memo
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
    readHere[at] = 1;
    rootImports[at] = python::scanImports(text);
    // The run checks these bytes: it takes them while the kept-text budget has room, and past
    // it reads the file again against their hash (keeping every checked file's text until then
    // would make memory grow with the tree).
    const uint64_t hash = XXH3_64bits(text.data(), text.size());
    if (!input.contentsHash) {
      input.contentsHash = hash;
      input.contentsStat = stat;
    }
    rootContentKeys[at] = contentKeyOf(text);
    rootAttributes[at] = projectAttributesRead(text, rootImports[at]);
    if (stat) {
      scanned[at] = ImportMemo::Entry{*stat, takenNs, rootImports[at], rootContentKeys[at],
                                      rootAttributes[at]};
    }
    // Only the bytes an earlier step hashed, if one did: the run checks what it saw.
    if (!input.keptText && *input.contentsHash == hash && request_.keptTexts &&
        request_.keptTexts->take(text.size())) {
      input.keptText = std::make_shared<std::optional<std::string>>(std::move(text));
    }
  });
  bool memoChanged = false;
  for (size_t at = 0; at < roots.size(); ++at) {
    if (!scanned[at]) {
      if (!checked_[roots[at]].contents && !readHere[at]) ++report_.importsFromMemo;
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
  while (!toRead_.empty() || !toFollow_.empty() || !toReadLater_.empty()) {
    std::vector<size_t> reading = std::move(toRead_);
    toRead_.clear();
    if (reading.empty() && toFollow_.empty()) {
      // The import path is read: now what installed functions import when called (in the
      // order asked for), minus what the import path reached meanwhile.
      for (size_t index : toReadLater_) {
        Module& module = modules_[index];
        if (module.readQueued) continue;
        module.readQueued = true;
        reading.push_back(index);
      }
      toReadLater_.clear();
    }
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
  std::map<std::string, std::set<std::string>> reached;
  for (const Module& module : modules_) {
    if (module.distribution != SIZE_MAX && module.readable) {
      reached[report_.distributionsRead[module.distribution].key].insert(module.name);
    }
  }
  report_.installedKey = installedKeyOf(reached);

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
  for (auto& problem : resolver_.problems()) report_.skipped.push_back(std::move(problem));
  return inputs;
}

std::vector<std::string> ContextCollector::pathsLookedAt() const {
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
  return unique;
}

void ContextCollector::storeSnapshot(const fs::path& file,
                                     const std::vector<FileInput>& inputs) const {
  // A run that read installed modules writes their distribution's entry after the analysis:
  // the snapshot waits for it (storeDistributionSummaries). Unless the installed-code budget
  // skipped modules: the next run, reading entries, would not spend it, and could read them.
  const bool grew = std::any_of(report_.distributionsRead.begin(),
                                report_.distributionsRead.end(),
                                [](const DistributionRead& read) { return read.grew; });
  if (grew && report_.skippedOverBudget > 0) return;
  std::optional<std::vector<std::pair<std::string, std::optional<FileStat>>>> seen =
      statForSnapshot(pathsLookedAt(), startedNs_);
  if (!seen) return; // something changed just before or during the run: not remembered yet
  ContextSnapshot snapshot;
  snapshot.takenNs = startedNs_;
  snapshot.seen = std::move(*seen);
  for (const FileInput& input : inputs) {
    std::string installedFile;
    if (const auto found = byName_.find(input.ref.moduleName);
        found != byName_.end() && found->second != kNone &&
        modules_[found->second].resolved.searchKind == SearchPathKind::Installed) {
      installedFile = modules_[found->second].resolved.file.string();
    }
    snapshot.inputs.push_back({input.ref.path, input.ref.moduleName, input.origin,
                               input.ref.isPackageInit, input.ref.inPackage,
                               std::move(installedFile)});
  }
  for (const auto& [name, field] : kSnapshotCounts) snapshot.counts[name] = report_.*field;
  snapshot.unresolved = report_.unresolved;
  snapshot.skipped = report_.skipped;
  snapshot.distributions = report_.distributions;
  snapshot.cachedEntries = cachedEntries_;
  snapshot.installedKey = report_.installedKey;
  if (grew) {
    report_.pendingSnapshot = std::make_shared<const PendingContextSnapshot>(
        PendingContextSnapshot{file, std::move(snapshot)});
    return;
  }
  writeContextSnapshot(file, snapshot); // one not written is only slower next time
}

} // namespace gradlint::context_detail
