#include "program/live_summaries.h"

#include "checkers/python/imports.h"
#include "program/dependency_order.h"
#include "program/key_hasher.h"
#include "program/result_cache.h"
#include "program/summary_store.h"

#include <xxhash.h>

#include <algorithm>
#include <filesystem>
#include <string_view>
#include <unordered_set>

namespace gradlint {
namespace {

// A module's summaries depend on those of the modules it calls into, which it imports: rounds
// of re-summarising importers stop when summaries stop changing. Past this many, everything is
// summarised in one run (an import chain that long whose every summary changes is rare).
constexpr size_t kMaxRounds = 8;

std::string absolutePath(const std::string& path) {
  std::error_code ec;
  return std::filesystem::absolute(path, ec).lexically_normal().string();
}

// The indices of the modules among `byName` that `text`'s imports may reach: the module
// imported, every package above it (importing runs their top level), and `m.x` for
// `from m import x` (a submodule).
std::vector<size_t> importedModules(const FileInput& input,
                                    const std::unordered_map<std::string_view, size_t>& byName) {
  std::vector<size_t> found;
  if (!input.contents) return found;
  auto add = [&](std::string_view name) {
    if (const auto it = byName.find(name); it != byName.end()) found.push_back(it->second);
  };
  for (const python::ImportStatement& statement : python::scanImports(*input.contents)) {
    const std::string module =
        python::absoluteImport(statement, input.ref.moduleName, input.ref.isPackageInit);
    if (module.empty()) continue;
    for (size_t dot = module.find('.'); dot != std::string::npos; dot = module.find('.', dot + 1)) {
      add(std::string_view(module).substr(0, dot));
    }
    add(module);
    for (const std::string& name : statement.names) add(module + "." + name);
  }
  std::sort(found.begin(), found.end());
  found.erase(std::unique(found.begin(), found.end()), found.end());
  return found;
}

// The module of `byName` that owns a summary (owningModule).
std::optional<size_t> ownerOf(const std::string& name,
                              const std::unordered_map<std::string_view, size_t>& byName) {
  const auto module = owningModule(name, [&](std::string_view m) { return byName.count(m); });
  if (!module) return std::nullopt;
  return byName.at(*module);
}

// Whether two tables hold the same summaries.
bool sameSummaries(const ir::SummaryTable& a, const ir::SummaryTable& b) {
  if (a.all().size() != b.all().size()) return false;
  ir::SummaryTable probe = a;
  for (const auto& [name, summary] : b.all()) {
    if (probe.update(name, summary)) return false;
  }
  return true;
}

} // namespace

bool LiveSummaries::warmUp(const std::vector<FileInput>& modules, const CheckOptions& options,
                           size_t batchModules, const std::function<bool()>& carryOn,
                           LiveSummariesStats& stats) {
  stats = LiveSummariesStats{};
  stats.modules = modules.size();
  std::unordered_map<std::string_view, size_t> byName;
  for (size_t i = 0; i < modules.size(); ++i) byName.emplace(modules[i].ref.moduleName, i);
  std::vector<std::vector<size_t>> imports(modules.size());
  for (size_t i = 0; i < modules.size(); ++i) imports[i] = importedModules(modules[i], byName);
  const auto [order, ends] = dependencyOrder(imports);
  std::vector<FileInput> run;
  run.reserve(modules.size());
  size_t taken = 0;
  for (size_t end : ends) {
    // A run ends with a whole component, once it holds a batch more than the last one.
    if (end < order.size() && end - taken < std::max<size_t>(batchModules, 1)) continue;
    // A run whose modules are all kept for their text (summarised by an earlier call, or for a
    // document) is not summarised again.
    const bool known = std::all_of(order.begin() + taken, order.begin() + end, [&](size_t i) {
      return unknownModules(std::span<const FileInput>(&modules[i], 1)) == 0;
    });
    for (size_t at = taken; at < end; ++at) run.push_back(modules[order[at]]);
    taken = end;
    if (known) continue;
    if (!carryOn()) return false;
    LiveSummariesStats runStats;
    summarise(run, options, runStats);
    stats.summarised += runStats.summarised;
    stats.rounds += runStats.rounds;
  }
  return true;
}

size_t LiveSummaries::unknownModules(std::span<const FileInput> contextModules) const {
  size_t unknown = 0;
  for (const FileInput& input : contextModules) {
    const std::string_view text = input.contents ? *input.contents : std::string_view();
    const auto stored = modules_.find(absolutePath(input.ref.path));
    unknown += stored == modules_.end() ||
               stored->second.textHash != XXH3_64bits(text.data(), text.size());
  }
  return unknown;
}

std::shared_ptr<const ir::SummaryTable>
LiveSummaries::summarise(const std::vector<FileInput>& contextModules, const CheckOptions& options,
                         LiveSummariesStats& stats) {
  stats = LiveSummariesStats{};
  stats.modules = contextModules.size();
  KeyHasher settings;
  addAnalysisSettings(settings, options);
  if (settings.hex() != settingsKey_) {
    modules_.clear();
    settingsKey_ = settings.hex();
  }
  const size_t count = contextModules.size();
  std::vector<std::string> paths(count);
  std::vector<uint64_t> hashes(count);
  std::unordered_map<std::string_view, size_t> byName;
  for (size_t i = 0; i < count; ++i) {
    const FileInput& input = contextModules[i];
    paths[i] = absolutePath(input.ref.path);
    const std::string_view text = input.contents ? *input.contents : std::string_view();
    hashes[i] = XXH3_64bits(text.data(), text.size());
    byName.emplace(input.ref.moduleName, i);
  }
  std::vector<std::vector<size_t>> importers(count);
  // A module is summarised again when its text changed (and below, when a module it imports
  // got different summaries).
  std::vector<char> pending(count, 0);
  for (size_t i = 0; i < count; ++i) {
    for (size_t target : importedModules(contextModules[i], byName)) {
      if (target != i) importers[target].push_back(i);
    }
    const auto stored = modules_.find(paths[i]);
    pending[i] = stored == modules_.end() || stored->second.textHash != hashes[i] ||
                 stored->second.name != contextModules[i].ref.moduleName;
  }
  std::vector<size_t> worklist;
  for (size_t i = 0; i < count; ++i) {
    if (pending[i]) worklist.push_back(i);
  }
  while (!worklist.empty()) {
    const bool everything = ++stats.rounds > kMaxRounds;
    if (everything) {
      worklist.resize(count);
      for (size_t i = 0; i < count; ++i) worklist[i] = i;
    }
    std::fill(pending.begin(), pending.end(), 0);
    for (size_t i : worklist) pending[i] = 1;
    // The run: the pending modules, against the kept summaries of all the others.
    auto known = options.knownSummaries
                     ? std::make_shared<ir::SummaryTable>(*options.knownSummaries)
                     : std::make_shared<ir::SummaryTable>();
    for (size_t i = 0; i < count; ++i) {
      if (pending[i]) continue;
      for (const auto& [name, summary] : modules_.at(paths[i]).summaries.all()) {
        known->update(name, summary);
      }
    }
    std::vector<FileInput> run;
    run.reserve(worklist.size());
    for (size_t i : worklist) run.push_back(contextModules[i]);
    CheckOptions runOptions = options;
    runOptions.keepSummaries = true;
    runOptions.knownSummaries = std::move(known);
    const std::shared_ptr<const ir::SummaryTable> result = runCheck(run, runOptions).summaries;
    stats.summarised += run.size();
    std::unordered_map<size_t, ir::SummaryTable> fresh;
    for (size_t i : worklist) fresh.try_emplace(i);
    if (result) {
      for (const auto& [name, summary] : result->all()) {
        const std::optional<size_t> owner = ownerOf(name, byName);
        if (owner && pending[*owner]) fresh.at(*owner).update(name, summary);
      }
    }
    // Modules whose summaries changed make their importers pending for the next round. A
    // package that re-exports a changed name holds a copy of its summary under its own name
    // (`pkg.f` for `from pkg.helpers import f`), so the change goes on through it.
    std::vector<char> next(count, 0);
    for (auto& [i, summaries] : fresh) {
      Module& module = modules_[paths[i]];
      const bool changed = module.name != contextModules[i].ref.moduleName ||
                           !sameSummaries(module.summaries, summaries);
      module.name = contextModules[i].ref.moduleName;
      module.textHash = hashes[i];
      module.summaries = std::move(summaries);
      if (!changed || everything) continue;
      for (size_t importer : importers[i]) {
        if (!pending[importer]) next[importer] = 1;
      }
    }
    worklist.clear();
    for (size_t i = 0; i < count; ++i) {
      if (next[i]) worklist.push_back(i);
    }
  }
  auto table = options.knownSummaries
                   ? std::make_shared<ir::SummaryTable>(*options.knownSummaries)
                   : std::make_shared<ir::SummaryTable>();
  for (size_t i = 0; i < count; ++i) {
    for (const auto& [name, summary] : modules_.at(paths[i]).summaries.all()) {
      table->update(name, summary);
    }
  }
  return table;
}

} // namespace gradlint
