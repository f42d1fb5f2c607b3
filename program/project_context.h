// The program around a check (docs/context.md): the project root, the Python environment, and
// the context modules the checked files reach through their imports: other files of the project
// and installed packages. Context modules are read and summarised, never reported; only their
// effect on the checked files is (a call to a helper that leaves grad mode disabled).
#pragma once

#include "checkers/ir/grad_state.h"
#include "checkers/python/imports.h"
#include "program/engine.h"
#include "program/file_stat.h"
#include "program/python_environment.h"

#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace gradlint {

// The nearest folder at or above `path` (a file or folder) holding pyproject.toml,
// gradlint.toml, setup.cfg, setup.py or .git; nullopt when none does. `marker` is set to the
// file that decided.
std::optional<std::filesystem::path> findProjectRoot(const std::filesystem::path& path,
                                                     std::string* marker = nullptr);

struct ContextRequest {
  std::filesystem::path projectRoot; // absolute; empty: no project folder beyond the packages
  std::optional<PythonEnvironment> environment;
  unsigned threads = 0;
  // Guards against what no summary is worth: a module larger than this is skipped, and so are
  // installed modules once this many bytes of them have been read.
  size_t maxModuleBytes = 2u << 20;
  size_t maxInstalledBytes = 4u << 20;
  const std::unordered_map<std::string, std::string>* openTexts = nullptr; // ContextSettings'
  // Where installed distributions' summaries are cached (empty: not cached).
  std::filesystem::path cacheDir;
  // Whether a context snapshot (program/context_snapshot.h) may answer, and one be stored: for a
  // run whose inputs are the files on disk, where only the result cache needs the context.
  bool snapshot = false;
  // Keep the stat of every path the collection looked at (ContextReport::pathsLookedAt): for a
  // caller that holds the context in memory (the language server).
  bool recordPathsLookedAt = false;
  // The run's kept-text budget (CheckOptions::keptTexts): the checked files' texts read for
  // their imports are handed to the analysis (FileInput::keptText) while it has room.
  std::shared_ptr<ByteBudget> keptTexts;
};

// A demand an installed module made of another: the module asked for, the names asked of it,
// and whether it may be a name of its parent instead (`from pkg import sub`).
struct IssuedDemand {
  std::string module;
  std::vector<std::string> names;
  bool mayBeName = false;
};

// An installed module as the distribution cache keeps it: enough to follow it again without
// reading it (the names whose definitions were followed, and what that asked of other
// modules), and to know its summaries are in the entry.
struct CachedModule {
  std::string name;
  bool isPackageInit = false;
  std::vector<std::string> followed;
  std::vector<IssuedDemand> issued;
};

// One installed distribution's modules that a run read (to be stored in its cache entry).
struct DistributionRead {
  std::string label;                // "name version"
  std::string key;                  // distributionKey: its identity
  std::filesystem::path cacheFile;  // its entry in the cache
  std::vector<CachedModule> modules; // those already in the entry and those read now
  bool grew = false;                 // some were read now: the entry is to be written
};

// What --show-context prints.
struct ContextGraph;           // program/project_context.cpp
struct PendingContextSnapshot; // program/context_snapshot.h

struct ContextReport {
  std::filesystem::path projectRoot;
  std::string projectRootFoundBy;
  std::optional<PythonEnvironment> environment;
  size_t projectModules = 0;   // context modules of the project
  size_t installedModules = 0; // context modules of installed distributions
  std::vector<std::string> distributions; // "name version", sorted
  size_t stubOnly = 0, compiled = 0, namespaces = 0, stdlib = 0, modelled = 0;
  size_t skippedTooLarge = 0, skippedUnreadable = 0, skippedOverBudget = 0;
  // What was not read, and why: (path, why), in the order met (the modules counted above, and
  // metadata or entries of installed folders that could not be looked at).
  std::vector<std::pair<std::string, std::string>> skipped;
  // Imports that resolve nowhere: (module, why), sorted, one per module.
  std::vector<std::pair<std::string, std::string>> unresolved;
  // The distribution cache: modules whose summaries came from it (not read), the summaries
  // themselves, and the entries to write after the run.
  size_t cachedModules = 0;
  std::vector<std::string> cachedDistributions;
  std::shared_ptr<ir::SummaryTable> cachedSummaries;
  std::vector<DistributionRead> distributionsRead;
  // The installed distributions the context reaches, by their identity (distributionKey:
  // name, version, RECORD), with the modules reached, whether they were read or their
  // summaries came from the distribution cache: what the result cache keys installed code on
  // (a key that said where the summaries came from would differ between a cold run and the
  // next).
  std::string installedKey;
  double seconds = 0; // finding and reading the context (wall)
  size_t importsFromMemo = 0; // checked files whose imports came from the cache (not read)
  // The context summary cache (project modules): the import graph its keys are computed from
  // (kept by the collector; the keys are computed only when the result cache does not answer
  // the run), each context module of the project with the key of what its summaries depend on
  // (its text and path, and the keys of what it imports, over import cycles), the modules of
  // the run (a summary belongs to the longest of them that prefixes its name), and where the
  // entries are.
  std::shared_ptr<const ContextGraph> summaryGraph; // null: no module to cache
  struct ProjectSummaryKey {
    std::string module;
    std::string key;       // without the run's settings (useCachedContextSummaries adds them)
    bool fromCache = false; // its summaries came from its entry: not lowered
  };
  std::vector<ProjectSummaryKey> projectSummaryKeys;
  std::vector<std::string> runModules;
  std::filesystem::path contextSummaryDir; // empty: not cached
  size_t projectFromCache = 0;  // context modules of the project whose summaries were cached
  size_t projectSummarised = 0; // those lowered and summarised in this run
  // The context came from a snapshot: the context modules are named, not read, and there is
  // no summaryGraph. A run the result cache does not answer collects the context again.
  bool fromSnapshot = false;
  size_t snapshotPaths = 0; // the paths the snapshot's stats were compared for
  // The snapshot of a collection that read installed distributions: stored once their entries
  // are written after the analysis (storeDistributionSummaries), so that the next run replays
  // it instead of collecting again.
  std::shared_ptr<const PendingContextSnapshot> pendingSnapshot;
  // With ContextRequest::recordPathsLookedAt: every path the collection looked at, with its stat
  // (nullopt: not there), taken after the collection; unset when one changed too recently to
  // vouch for what was read (program/file_stat.h). While all of them stat the same, a
  // collection from roots with the same contextDemandKey finds the same context.
  std::optional<std::vector<std::pair<std::string, std::optional<FileStat>>>> pathsLookedAt;
};

// The context modules `checked` reach, as inputs for runCheck (FileInput::context set, their
// text read, with the stat taken before the read). The checked files read to find their
// imports keep the text read (contents set): the run checks what was scanned, and reads
// nothing twice. Installed modules are named by their path inside their search folder
// (`cosmos_guardrail/checker.py`) and carry their distribution. Never throws for what it reads:
// unreadable, undecodable, huge or cyclic code is skipped or read once. From a snapshot
// (ContextReport::fromSnapshot), the context modules come without their text.
std::vector<FileInput> collectContext(std::vector<FileInput>& checked,
                                      const ContextRequest& request, ContextReport& report);

// What decides the context of a run: the command line's (or an editor's) choices over the
// configuration's keys `python`, `project-root` and `context`.
struct ContextSettings {
  std::vector<std::string> paths; // the paths named (the first one's configuration decides)
  std::string configPath;         // --config; empty: the nearest configuration
  std::string projectRoot;        // --project-root
  std::string python;             // --python
  bool enabled = true;            // false: --no-context
  unsigned threads = 0;
  // Files whose text is not what is on disk (an editor's open buffers), by absolute path.
  std::unordered_map<std::string, std::string> openTexts;
  std::filesystem::path cacheDir; // the distribution cache's folder; empty: none
  bool snapshot = false;          // ContextRequest::snapshot
  bool recordPathsLookedAt = false; // ContextRequest::recordPathsLookedAt
  std::shared_ptr<ByteBudget> keptTexts; // ContextRequest::keptTexts
};

// What a checked file's text decides about its context: the imports it makes (with the names
// asked of them) and the attributes of imported modules it reads, as a key. Two texts with
// the same key reach the same context modules.
std::string contextDemandKey(std::string_view text);

// Finds the project root and the environment, and appends the context modules `inputs` reach
// to them. Returns false (adding nothing) when context is off. Throws EnvironmentError for a
// --python or `python` key naming no environment and a --project-root that is no folder,
// ConfigError for a broken configuration.
bool addProgramContext(const ContextSettings& settings, std::vector<FileInput>& inputs,
                       ContextReport& report);

// After a run with CheckOptions::keepSummaries: writes the cache entry of each distribution of
// which the run read modules, with their summaries from `summaries`, then the report's pending
// context snapshot when every entry was written. Returns a warning for an entry that could not
// be written ("" when all were).
std::string storeDistributionSummaries(const ContextReport& report,
                                       const ir::SummaryTable& summaries);

// Before the run: `inputs` (nullopt: all of them) without the context modules of the project
// whose entry in the context summary cache (under the cache folder, `context/summaries/`)
// matches their key and `options`' settings (they are not lowered); their summaries join
// `options.knownSummaries` and their keys `options.knownSummariesKey`. A damaged entry is a
// miss. The run's findings are those of a run over all of `inputs`.
std::optional<std::vector<FileInput>> useCachedContextSummaries(
    const std::vector<FileInput>& inputs, CheckOptions& options, ContextReport& report);

// After a run with CheckOptions::keepSummaries: writes the entry of each context module of the
// project that was summarised (useCachedContextSummaries found no entry). Returns a warning for
// an entry that could not be written ("" when all were).
// `threads` write the entries (0: all cores).
std::string storeContextSummaries(const ContextReport& report, const ir::SummaryTable& summaries,
                                  unsigned threads);

} // namespace gradlint
