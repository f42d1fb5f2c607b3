// libFuzzer target: bytes -> one Python file through the whole check pipeline. The input is
// checked with every registered rule (preview ones included), with and without the grad-API
// prefilter, then its fixes (safe and unsafe) are applied and re-checked, and the findings are
// rendered in every output format. Any crash, hang, sanitizer report or broken invariant below
// is a bug: gradlint runs on every file of every repository, including broken ones.
#include "program/engine.h"
#include "rules/rule.h"
#include "tool/fixes.h"
#include "tool/render.h"

#include <cstdint>
#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

namespace {

using namespace gradlint;

std::vector<std::string> everyRuleCode() {
  std::vector<std::string> codes;
  for (const rules::Rule* rule : rules::allRules()) codes.emplace_back(rule->info().code);
  return codes;
}

FileInput inputFor(std::string text) {
  FileInput input;
  // A package module, so the import-time rules (GL102) run too.
  input.ref.path = "pkg/fuzzed.py";
  input.ref.moduleName = "pkg.fuzzed";
  input.ref.inPackage = true;
  input.contents = std::move(text);
  static const std::vector<std::string> kAllCodes = everyRuleCode();
  input.enabledRules = kAllCodes;
  return input;
}

void renderEveryFormat(const CheckResult& result) {
  for (OutputFormat format : {OutputFormat::Full, OutputFormat::Concise, OutputFormat::Json,
                              OutputFormat::JsonLines, OutputFormat::Github, OutputFormat::Sarif,
                              OutputFormat::Junit}) {
    std::ostringstream out;
    render(result, format, out);
  }
  std::ostringstream statistics;
  renderStatistics(result, statistics);
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  for (bool prefilter : {true, false}) {
    CheckOptions options;
    options.prefilter = prefilter;
    options.threads = 1;
    const CheckResult result = runCheck({inputFor(text)}, options);
    renderEveryFormat(result);
    // Every finding lies inside the file.
    for (const FileReport& report : result.files) {
      for (const Diagnostic& diagnostic : report.diagnostics) {
        if (diagnostic.range.startByte > diagnostic.range.endByte ||
            diagnostic.range.endByte > text.size()) {
          std::abort();
        }
      }
    }
  }
  CheckOptions options;
  options.threads = 1;
  const FixRun fixes = runFixes({inputFor(text)}, options, /*unsafe=*/true);
  renderEveryFormat(fixes.remaining);
  for (const FixedFile& file : fixes.files) {
    if (file.original != text) std::abort(); // the original is what was read, unchanged
    (void)unifiedDiff(file.path, file.original, file.fixed);
  }
  return 0;
}
