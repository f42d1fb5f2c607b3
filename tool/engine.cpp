#include "tool/engine.h"

#include "checkers/ir/summaries.h"
#include "checkers/python/frontend.h"
#include "rules/rule.h"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <functional>
#include <mutex>
#include <sstream>
#include <thread>
#include <unordered_set>

namespace gradlint {
namespace {

// Every rule starts from a grad-mode API, all of whose names contain one of these.
constexpr std::string_view kGradMarkers[] = {"grad", "inference_mode"};

bool mentionsAny(const std::string& text, const std::vector<std::string>& needles) {
  return std::any_of(needles.begin(), needles.end(), [&](const std::string& needle) {
    return text.find(needle) != std::string::npos;
  });
}

struct FileState {
  const FileInput* input = nullptr;
  std::shared_ptr<SourceText> source;
  std::optional<python::PythonFileResult> lowered;
  std::string error;
};

bool readFile(const std::string& path, std::string& out, std::string& error) {
  std::ifstream stream(path, std::ios::binary);
  if (!stream) {
    error = path + ": cannot read: " + std::strerror(errno);
    return false;
  }
  std::ostringstream buffer;
  buffer << stream.rdbuf();
  if (stream.bad()) {
    error = path + ": read failed: " + std::strerror(errno);
    return false;
  }
  out = std::move(buffer).str();
  return true;
}

void lowerFile(FileState& state) {
  const SourceFileRef& ref = state.input->ref;
  python::ModuleContext context{ref.moduleName, ref.isPackageInit, ref.inPackage};
  state.lowered = python::analyzePythonFile(*state.source, context);
}

} // namespace

void parallelFor(size_t count, unsigned threads, const std::function<void(size_t)>& fn) {
  if (threads == 0) threads = std::max(1u, std::thread::hardware_concurrency());
  threads = static_cast<unsigned>(std::min<size_t>(threads, count));
  if (threads <= 1) {
    for (size_t i = 0; i < count; ++i) fn(i);
    return;
  }
  std::atomic<size_t> next{0};
  std::vector<std::thread> workers;
  workers.reserve(threads);
  for (unsigned t = 0; t < threads; ++t) {
    workers.emplace_back([&] {
      for (size_t i = next++; i < count; i = next++) fn(i);
    });
  }
  for (std::thread& worker : workers) worker.join();
}

bool isRuleSelected(std::string_view code, bool preview, const CheckOptions& options) {
  // Like ruff's syntax errors, GL000 is always on: without it a broken file looks clean.
  if (code == "GL000") return true;
  auto matches = [&](const std::vector<std::string>& prefixes) {
    return std::any_of(prefixes.begin(), prefixes.end(), [&](const std::string& prefix) {
      return prefix == "ALL" || code.starts_with(prefix);
    });
  };
  if (matches(options.ignore)) return false;
  if (options.select.empty()) return !preview;
  // A preview rule runs only when named (or its exact prefix is), not through ALL.
  if (preview) {
    return std::any_of(options.select.begin(), options.select.end(),
                       [&](const std::string& p) { return p != "ALL" && code.starts_with(p); });
  }
  return matches(options.select);
}

CheckResult runCheck(const std::vector<FileInput>& inputs, const CheckOptions& options) {
  CheckResult result;
  std::vector<FileState> states(inputs.size());
  for (size_t i = 0; i < inputs.size(); ++i) states[i].input = &inputs[i];

  // Read and lower the files that mention a grad-mode API.
  const std::vector<std::string> markers(std::begin(kGradMarkers), std::end(kGradMarkers));
  parallelFor(states.size(), options.threads, [&](size_t i) {
    FileState& state = states[i];
    std::string bytes;
    if (state.input->contents) {
      bytes = *state.input->contents;
    } else if (!readFile(state.input->ref.path, bytes, state.error)) {
      return;
    }
    state.source = std::make_shared<SourceText>(state.input->ref.path, std::move(bytes));
    if (!options.prefilter || mentionsAny(state.source->bytes(), markers)) lowerFile(state);
  });

  // Summaries across files. A file that never names a grad API can still call a helper that
  // leaks: re-scan the skipped files for the names of summarised functions until none is new.
  ir::SummaryTable summaries;
  std::unordered_set<std::string> scannedNames;
  while (true) {
    std::vector<const ir::ModuleIR*> modules;
    for (const FileState& state : states) {
      if (state.lowered) modules.push_back(&state.lowered->module);
    }
    summaries = ir::computeSummaries(modules);
    std::vector<std::string> names;
    for (const auto& [qualified, summary] : summaries.all()) {
      std::string name = qualified.substr(qualified.rfind('.') + 1);
      if (scannedNames.insert(name).second) names.push_back(std::move(name));
    }
    if (names.empty()) break;
    std::atomic<size_t> added{0};
    parallelFor(states.size(), options.threads, [&](size_t i) {
      FileState& state = states[i];
      if (state.lowered || !state.source || !mentionsAny(state.source->bytes(), names)) return;
      lowerFile(state);
      ++added;
    });
    if (added == 0) break;
  }

  // Rules.
  const auto& rules = rules::allRules();
  std::vector<const rules::Rule*> selected;
  for (const rules::Rule* rule : rules) {
    if (isRuleSelected(rule->info().code, rule->info().preview, options)) {
      selected.push_back(rule);
    }
  }
  std::vector<std::vector<Diagnostic>> perFile(states.size());
  parallelFor(states.size(), options.threads, [&](size_t i) {
    FileState& state = states[i];
    if (!state.lowered) return;
    rules::RuleContext context(state.lowered->module, summaries,
                               state.lowered->frontendDiagnostics);
    for (const rules::Rule* rule : selected) rule->check(context);
    std::vector<Diagnostic> diagnostics = context.takeDiagnostics();
    const Suppressions& suppressions = state.lowered->suppressions;
    std::erase_if(diagnostics, [&](const Diagnostic& d) {
      return d.code != "GL000" && suppressions.suppresses(d.range.startLine, d.code);
    });
    std::sort(diagnostics.begin(), diagnostics.end(), [](const Diagnostic& a, const Diagnostic& b) {
      return std::tie(a.range.startByte, a.code, a.range.endByte) <
             std::tie(b.range.startByte, b.code, b.range.endByte);
    });
    // A `finally` body is lowered once per way out; its events are reported once.
    diagnostics.erase(std::unique(diagnostics.begin(), diagnostics.end(),
                                  [](const Diagnostic& a, const Diagnostic& b) {
                                    return a.code == b.code &&
                                           a.range.startByte == b.range.startByte &&
                                           a.range.endByte == b.range.endByte;
                                  }),
                      diagnostics.end());
    perFile[i] = std::move(diagnostics);
  });

  for (size_t i = 0; i < states.size(); ++i) {
    FileState& state = states[i];
    if (!state.error.empty()) {
      result.errors.push_back(state.error);
      continue;
    }
    ++result.filesRead;
    if (state.lowered) {
      ++result.filesAnalysed;
      for (std::string& warning : state.lowered->warnings) result.warnings.push_back(warning);
    }
    if (!perFile[i].empty()) result.files.push_back({state.source, std::move(perFile[i])});
  }
  std::sort(result.files.begin(), result.files.end(), [](const FileReport& a, const FileReport& b) {
    return a.source->path() < b.source->path();
  });
  return result;
}

} // namespace gradlint
