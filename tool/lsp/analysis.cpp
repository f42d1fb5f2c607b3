#include "tool/lsp/analysis.h"

#include "program/config.h"
#include "program/discover.h"
#include "program/engine.h"
#include "program/project_context.h"
#include "tool/fixes.h"

#include <filesystem>

namespace gradlint::lsp {
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
                                     std::vector<std::string>& problems) {
  FileInput input;
  input.ref = describeFile(path);
  input.contents = text;
  const std::filesystem::path file(path);
  try {
    ConfigResolver configs(std::nullopt);
    const std::shared_ptr<const Settings> settings = configs.settingsForFile(file);
    if (excludedByConfiguration(*settings, file)) return std::nullopt;
    input.enabledRules = enabledRules(*settings, CliSelection{}, file);
  } catch (const ConfigError& error) {
    problems.push_back(std::string(error.what()) + " (using the default rules)");
    input.enabledRules = enabledRules(Settings{}, CliSelection{}, file);
  }
  return input;
}

CheckOptions bufferOptions() {
  CheckOptions options;
  options.threads = 1; // one small input: threads would only cost their start-up
  return options;
}

} // namespace

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
                             bool notebook) {
  BufferAnalysis analysis;
  if (notebook ? !isNotebookPath(path) : !isCheckedPath(path)) return analysis;
  std::optional<FileInput> input = bufferInput(path, text, analysis.problems);
  if (!input) return analysis;
  input->documentMemo = std::move(memo);
  std::vector<FileInput> inputs{std::move(*input)};
  // The same program around the buffer as around `gradlint check PATH`.
  ContextSettings settings;
  settings.paths = {path};
  settings.threads = 1;
  settings.openTexts = openTexts;
  try {
    ContextReport report;
    addProgramContext(settings, inputs, report);
  } catch (const std::exception& error) {
    analysis.problems.push_back(std::string(error.what()) + " (checking without context)");
    inputs.resize(1);
  }
  CheckResult result = runCheck(inputs, bufferOptions());
  analysis.problems.insert(analysis.problems.end(), result.errors.begin(), result.errors.end());
  for (FileReport& report : result.files) {
    for (Diagnostic& diagnostic : report.diagnostics) {
      analysis.diagnostics.push_back(std::move(diagnostic));
    }
  }
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
