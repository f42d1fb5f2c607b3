// The import graph of a run (for the cache keys) and the context summary cache.
#include "program/context_collector.h"
#include "program/cache_folder.h"

#include "checkers/python/imports.h"
#include "program/config.h"
#include "program/context_snapshot.h"
#include "program/definition_slices.h"
#include "program/dependency_order.h"
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

namespace gradlint {
namespace context_detail {

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
// unit, keyed on all of its members. `inputs` are the run's (each read context module's text
// is there).
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
  // Components come callees first: each one's targets are keyed before it.
  const DependencyOrder components = dependencyOrder(edges);
  constexpr size_t kUnkeyed = SIZE_MAX;
  std::vector<size_t> component(count, kUnkeyed);
  std::vector<std::string> componentKey;
  std::vector<std::string> memberKey(count);
  size_t begin = 0;
  for (const size_t end : components.ends) {
    std::vector<size_t> members(components.order.begin() + begin,
                                components.order.begin() + end);
    begin = end;
    for (size_t w : members) component[w] = componentKey.size();
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

} // namespace context_detail

using namespace context_detail;

namespace {

// `pending` as the run after this one would find the context: the modules of the distributions
// whose entries were just `written` come from those entries, not from their files.
void storeFinishedSnapshot(const PendingContextSnapshot& pending,
                           const std::vector<ContextSnapshot::CachedEntry>& written) {
  ContextSnapshot snapshot = pending.snapshot;
  std::set<std::string> labels;
  std::set<std::string> files;
  for (const ContextSnapshot::CachedEntry& entry : written) {
    labels.insert(entry.label);
    files.insert(entry.file);
  }
  const size_t before = snapshot.inputs.size();
  std::erase_if(snapshot.inputs, [&](const ContextSnapshot::Input& input) {
    return labels.count(input.origin) != 0;
  });
  const size_t fromEntries = before - snapshot.inputs.size();
  snapshot.counts["installed-modules"] -= fromEntries;
  snapshot.counts["cached-modules"] += fromEntries;
  std::erase_if(snapshot.distributions,
                [&](const std::string& label) { return labels.count(label) != 0; });
  // An entry was looked at as missing, or loaded with the text this run replaced.
  std::erase_if(snapshot.seen, [&](const auto& seen) { return files.count(seen.first) != 0; });
  std::erase_if(snapshot.cachedEntries, [&](const ContextSnapshot::CachedEntry& entry) {
    return labels.count(entry.label) != 0;
  });
  snapshot.cachedEntries.insert(snapshot.cachedEntries.end(), written.begin(), written.end());
  writeContextSnapshot(pending.file, snapshot); // one not written is only slower next time
}

} // namespace

std::string storeDistributionSummaries(const ContextReport& report,
                                       const ir::SummaryTable& summaries) {
  std::string warning;
  std::vector<ContextSnapshot::CachedEntry> written;
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
    // Installed code is read leniently: a name that is not UTF-8 becomes U+FFFD.
    const std::string text =
        entry.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
    if (ec || !replaceFile(read.cacheFile, text, error)) {
      warning = fmt::format("cannot cache the summaries of {} in {}: {}", read.label,
                            read.cacheFile.parent_path().string(),
                            ec ? ec.message() : error);
      continue;
    }
    written.push_back({read.label, read.cacheFile.string(), XXH3_64bits(text.data(), text.size())});
  }
  if (report.pendingSnapshot && warning.empty()) {
    storeFinishedSnapshot(*report.pendingSnapshot, written);
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
      if (stored.at("format") != kContextSummaryFormat ||
          stored.at("module").get<std::string>() != entry.module ||
          !readSummaries(stored.at("summaries"), summaries, error)) {
        continue;
      }
      markCacheEntryUsed(report.contextSummaryDir / (entry.key + ".json"));
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
  const std::unordered_set<std::string_view> modules(report.runModules.begin(),
                                                     report.runModules.end());
  for (const auto& [name, summary] : summaries.all()) {
    const auto module = owningModule(name, [&](std::string_view m) { return modules.count(m); });
    if (!module) continue;
    if (const auto owner = byModule.find(std::string(*module)); owner != byModule.end()) {
      owner->second.update(name, summary);
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
                    nlohmann::json(entry.module)
                        .dump(-1, ' ', false, nlohmann::json::error_handler_t::replace),
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
