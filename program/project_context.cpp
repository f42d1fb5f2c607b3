#include "program/project_context.h"
#include "program/cache_folder.h"
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

namespace gradlint {
namespace context_detail {

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
  replayed.skipped = snapshot.skipped;
  replayed.distributions = snapshot.distributions;
  replayed.installedKey = snapshot.installedKey;
  replayed.fromSnapshot = true;
  replayed.snapshotPaths = snapshot.seen.size();
  std::vector<FileInput> inputs;
  inputs.reserve(snapshot.inputs.size());
  for (const ContextSnapshot::Input& module : snapshot.inputs) {
    FileInput input;
    // One aggregate: field by field, GCC 12 reports the two flags as maybe uninitialized.
    input.ref = SourceFileRef{module.path, module.moduleName, module.isPackageInit,
                              module.inPackage};
    input.origin = module.origin;
    input.context = true;
    if (!module.file.empty()) {
      // An installed module (one of no distribution: those of one come from the distribution
      // cache) is named by its path inside its search folder, by which the result cache cannot
      // read it: it is read here. Its stat is among those the snapshot just checked.
      std::string text;
      std::string error;
      input.contentsStat = statFile(module.file);
      if (!readWholeFile(module.file, text, error)) return std::nullopt;
      input.contents = std::move(text);
    }
    inputs.push_back(std::move(input));
  }
  report = std::move(replayed);
  return inputs;
}

} // namespace context_detail

using namespace context_detail;

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
        markCacheEntryUsed(snapshotFile);
        report.contextSummaryDir = request.cacheDir / "context" / "summaries";
        report.seconds =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        return std::move(*context);
      }
    }
  }
  // A checked file given with its text (an editor's buffer) is not read: what its file on
  // disk holds, or when it was last saved, does not change the context.
  std::unordered_set<std::string> givenTexts;
  for (const FileInput& input : checked) {
    if (input.contents) givenTexts.insert(input.ref.path);
  }
  ContextCollector collector(checked, request, report);
  std::vector<FileInput> context = collector.run();
  if (snapshot) collector.storeSnapshot(snapshotFile, context);
  if (request.recordPathsLookedAt) {
    std::vector<std::string> paths = collector.pathsLookedAt();
    std::erase_if(paths, [&](const std::string& path) { return givenTexts.count(path) != 0; });
    report.pathsLookedAt = statForSnapshot(paths, collector.startedNs());
  }
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
  request.recordPathsLookedAt = settings.recordPathsLookedAt;
  request.keptTexts = settings.keptTexts;
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
  } else if (std::optional<fs::path> root =
                 findProjectRoot(firstPath, &report.projectRootFoundBy)) {
    request.projectRoot = *root;
  }
  EnvironmentRequest environment;
  environment.projectRoot = request.projectRoot;
  environment.checkedPaths.assign(settings.paths.begin(), settings.paths.end());
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

} // namespace gradlint
