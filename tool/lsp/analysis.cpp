#include "tool/lsp/analysis.h"

#include "checkers/ir/grad_state.h"
#include "program/config.h"
#include "program/discover.h"
#include "program/engine.h"
#include "program/file_stat.h"
#include "program/key_hasher.h"
#include "program/live_summaries.h"
#include "program/project_context.h"
#include "tool/fixes.h"

#include <fmt/format.h>
#include <xxhash.h>

#include <algorithm>
#include <filesystem>
#include <span>
#include <unordered_set>

namespace gradlint::lsp {

struct ContextMemo {
  std::string key; // contextKey of the buffer when the context was collected
  // Every path the collection looked at, with its stat then.
  std::vector<std::pair<std::string, std::optional<FileStat>>> pathsLookedAt;
  std::unordered_set<std::string> lookedAt; // the same paths, absolute
  // The other open buffers among those paths, with the hash of their text then: their text, not
  // the file's, was the module's.
  std::unordered_map<std::string, uint64_t> openTextsUsed;
  // The context modules' summaries, from a run over them alone.
  std::shared_ptr<const ir::SummaryTable> summaries;
  // Diagnostics with the context have been had for the document once (kept across
  // collections): later ones publish no early diagnostics.
  bool hadContext = false;
};

std::shared_ptr<ContextMemo> makeContextMemo() { return std::make_shared<ContextMemo>(); }

namespace {

// True when the configuration excludes the file or a folder it is in (discovery would never
// have reached it), up to the configuration's own folder.
bool excludedByConfiguration(const Settings& settings, const std::filesystem::path& file) {
  if (isExcluded(settings, file)) return true;
  if (settings.configPath.empty()) return false;
  const std::filesystem::path root = settings.root.lexically_normal();
  for (std::filesystem::path folder = file.parent_path().lexically_normal();
       folder != root && folder.has_relative_path() && folder != folder.parent_path();
       folder = folder.parent_path()) {
    if (isExcluded(settings, folder)) return true;
  }
  return false;
}

// The engine input for a buffer, with the rules its configuration enables; nullopt when the
// configuration excludes the file. A broken configuration is reported and the built-in
// defaults are used, so the buffer is still checked.
std::optional<FileInput> bufferInput(const std::string& path, const std::string& text,
                                     std::vector<std::string>& problems,
                                     std::string* configPath = nullptr) {
  FileInput input;
  input.ref = describeFile(path);
  input.contents = text;
  const std::filesystem::path file(path);
  try {
    ConfigResolver configs(std::nullopt);
    const std::shared_ptr<const Settings> settings = configs.settingsForFile(file);
    if (excludedByConfiguration(*settings, file)) return std::nullopt;
    if (configPath != nullptr) *configPath = settings->configPath;
    input.enabledRules = std::make_shared<const std::vector<std::string>>(
        enabledRules(*settings, CliSelection{}, file));
  } catch (const ConfigError& error) {
    problems.push_back(std::string(error.what()) + " (using the default rules)");
    input.enabledRules = std::make_shared<const std::vector<std::string>>(
        enabledRules(Settings{}, CliSelection{}, file));
  }
  return input;
}

CheckOptions bufferOptions() {
  CheckOptions options;
  options.threads = 1; // one small input: threads would only cost their start-up
  return options;
}

// What decides a buffer's context besides the files on disk and the other open buffers: its
// path, what its text imports, and its configuration file (path and stat).
std::string contextKey(const std::string& path, const std::string& text,
                       const std::string& configPath) {
  KeyHasher key;
  key.add(path);
  key.add(contextDemandKey(text));
  key.add(configPath);
  if (const std::optional<FileStat> stat = statFile(configPath)) {
    key.add(static_cast<uint64_t>(stat->size));
    key.add(static_cast<uint64_t>(stat->mtimeNs));
    key.add(static_cast<uint64_t>(stat->ctimeNs));
  }
  return key.hex();
}

uint64_t textHash(const std::string& text) { return XXH3_64bits(text.data(), text.size()); }

// Whether the open buffers that stand for files of the memo's context are as they were: the
// same ones, with the same text (a buffer of a file outside it changes nothing).
bool sameOpenTexts(const ContextMemo& memo,
                   const std::unordered_map<std::string, std::string>& openTexts) {
  size_t used = 0;
  for (const auto& [path, text] : openTexts) {
    if (memo.lookedAt.count(path) == 0) continue;
    const auto found = memo.openTextsUsed.find(path);
    if (found == memo.openTextsUsed.end() || found->second != textHash(text)) return false;
    ++used;
  }
  return used == memo.openTextsUsed.size();
}

// The memo of a collection: its key, the stat of every path it looked at, and the open buffers
// among them.
void remember(ContextMemo& memo, std::string key,
              std::vector<std::pair<std::string, std::optional<FileStat>>> pathsLookedAt,
              const std::unordered_map<std::string, std::string>& openTexts) {
  memo.key = std::move(key);
  memo.pathsLookedAt = std::move(pathsLookedAt);
  for (const auto& seen : memo.pathsLookedAt) {
    std::error_code ec;
    memo.lookedAt.insert(std::filesystem::absolute(seen.first, ec).lexically_normal().string());
  }
  for (const auto& [path, text] : openTexts) {
    if (memo.lookedAt.count(path) != 0) memo.openTextsUsed.emplace(path, textHash(text));
  }
}

// Whether every path a collection looked at still stats as it did then.
bool stillHolds(const std::vector<std::pair<std::string, std::optional<FileStat>>>& paths) {
  return std::all_of(paths.begin(), paths.end(),
                     [](const auto& seen) { return statEntry(seen.first) == seen.second; });
}

// The diagnostics and engine errors of a run, added to `analysis`.
void addResult(CheckResult result, BufferAnalysis& analysis) {
  analysis.problems.insert(analysis.problems.end(), result.errors.begin(), result.errors.end());
  for (FileReport& report : result.files) {
    for (Diagnostic& diagnostic : report.diagnostics) {
      analysis.diagnostics.push_back(std::move(diagnostic));
    }
  }
}

// The buffer checked without its context (the early diagnostics).
BufferAnalysis checkAlone(const FileInput& buffer, const CheckOptions& options) {
  BufferAnalysis analysis;
  addResult(runCheck({buffer}, options), analysis);
  analysis.trace = "published without the context first";
  return analysis;
}

} // namespace

CheckOptions contextSummaryOptions() {
  CheckOptions options = bufferOptions();
  options.keepSummaries = true;
  options.threads = 0; // hundreds of modules: every core lowers them
  return options;
}

// Python only: a C++ buffer would need its compile flags and seconds of Clang per edit. A
// notebook opened as a text document (its JSON) is not checked: positions in the JSON are not
// the cells' (notebooks are synced as notebook documents, analyseNotebook below).
bool isCheckedPath(const std::string& path) { return isPythonPath(path); }

BufferAnalysis analyseNotebook(const std::string& path, const std::string& ipynb) {
  return analyseBuffer(path, ipynb, nullptr, {}, /*notebook=*/true);
}

BufferAnalysis analyseBuffer(const std::string& path, const std::string& text,
                             std::shared_ptr<python::DocumentMemo> memo,
                             const std::unordered_map<std::string, std::string>& openTexts,
                             bool notebook, const std::shared_ptr<ContextMemo>& contextMemo,
                             const EarlyDiagnostics* early, LiveSummaries* live) {
  BufferAnalysis analysis;
  if (notebook ? !isNotebookPath(path) : !isCheckedPath(path)) return analysis;
  std::string configPath;
  std::optional<FileInput> input = bufferInput(path, text, analysis.problems, &configPath);
  if (!input) return analysis;
  input->documentMemo = std::move(memo);
  std::vector<FileInput> inputs{std::move(*input)};
  CheckOptions options = bufferOptions();
  const std::string key = contextMemo ? contextKey(path, text, configPath) : std::string();
  if (contextMemo && contextMemo->summaries && contextMemo->key == key &&
      sameOpenTexts(*contextMemo, openTexts) && stillHolds(contextMemo->pathsLookedAt)) {
    // The context as last collected: only the buffer is lowered.
    options.knownSummaries = contextMemo->summaries;
    analysis.trace = fmt::format("context reused: {} paths as they were",
                                 contextMemo->pathsLookedAt.size());
  } else {
    const bool hadContext = contextMemo && contextMemo->hadContext;
    if (contextMemo) {
      *contextMemo = ContextMemo{};
      contextMemo->hadContext = true;
    }
    // The same program around the buffer as around `gradlint check PATH`.
    ContextSettings settings;
    settings.paths = {path};
    settings.threads = 0; // a project's context is hundreds of modules: every core reads them
    settings.openTexts = openTexts;
    settings.recordPathsLookedAt = contextMemo != nullptr;
    try {
      ContextReport report;
      if (addProgramContext(settings, inputs, report)) {
        analysis.trace = fmt::format(
            "context collected: {} project and {} installed modules in {:.0f} ms{}",
            report.projectModules, report.installedModules, report.seconds * 1000,
            contextMemo && !report.pathsLookedAt
                ? " (not kept: a file it read changed in the last seconds)"
                : "");
      }
      bool publishEarly = early != nullptr && early->publish && !hadContext &&
                          inputs.size() - 1 > early->contextModules;
      // Worth it only when the context's summaries are not at hand: a second document of a
      // project finds most of them kept.
      if (publishEarly && live != nullptr) {
        publishEarly = live->unknownModules(std::span<const FileInput>(inputs).subspan(1)) >
                       early->contextModules;
      }
      if (publishEarly) {
        early->publish(checkAlone(inputs.front(), options));
      }
      if (contextMemo) {
        // The context modules are summarised on their own, and the buffer is checked against
        // their summaries, as every later analysis that reuses them will be: a summary of the
        // buffer's own functions, or a count of its call sites, never comes from an older text.
        const CheckOptions contextOptions = contextSummaryOptions();
        const std::vector<FileInput> contextModules(inputs.begin() + 1, inputs.end());
        if (contextModules.empty()) {
          options.knownSummaries = std::make_shared<const ir::SummaryTable>();
        } else if (live != nullptr) {
          LiveSummariesStats stats;
          options.knownSummaries = live->summarise(contextModules, contextOptions, stats);
          analysis.trace += fmt::format("; summarised {} of {} context modules", stats.summarised,
                                        stats.modules);
        } else {
          options.knownSummaries = runCheck(contextModules, contextOptions).summaries;
        }
        inputs.resize(1);
        if (report.pathsLookedAt) {
          remember(*contextMemo, key, std::move(*report.pathsLookedAt), openTexts);
          contextMemo->summaries = options.knownSummaries;
        }
      }
    } catch (const std::exception& error) {
      analysis.problems.push_back(std::string(error.what()) + " (checking without context)");
      inputs.resize(1);
    }
  }
  addResult(runCheck(inputs, options), analysis);
  return analysis;
}

std::optional<std::string> fixAllSafe(const std::string& path, const std::string& text) {
  if (!isCheckedPath(path)) return std::nullopt;
  std::vector<std::string> problems;
  std::optional<FileInput> input = bufferInput(path, text, problems);
  if (!input) return std::nullopt;
  std::vector<FileInput> inputs{std::move(*input)};
  FixRun run = runFixes(std::move(inputs), bufferOptions(), /*unsafe=*/false);
  if (run.files.empty() || run.files.front().fixed == text) return std::nullopt;
  return run.files.front().fixed;
}

} // namespace gradlint::lsp
