// libFuzzer target: bytes -> one Jupyter notebook (.ipynb) through the notebook reader and the
// whole check pipeline, as `gradlint check` runs a notebook: every registered rule (preview ones
// included), with and without the grad-API prefilter, every output format (their positions point
// into the .ipynb file's own lines), then the fixes (safe and unsafe) written back into the
// notebook's bytes and checked again. Bytes that are not a notebook must give one error naming
// the file (no library-internal message), never a crash, a hang or a sanitizer report.
#include "checkers/python/notebook.h"
#include "program/engine.h"
#include "rules/rule.h"
#include "test/fuzz/fuzz_support.h"
#include "tool/fixes.h"
#include "tool/render.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

namespace {

using namespace gradlint;

constexpr const char* kPath = "pkg/fuzzed.ipynb";

using fuzz::renderEveryFormat;

FileInput inputFor(std::string text) { return fuzz::inputFor(kPath, std::move(text)); }

// An error about the notebook names it and says what is wrong in words, not in nlohmann's
// exception tags.
void checkErrors(const CheckResult& result) {
  for (const std::string& error : result.errors) {
    if (error.find(kPath) == std::string::npos || error.find("[json.") != std::string::npos) {
      std::abort();
    }
  }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  // The reader alone, and what it promises about the module it builds.
  std::string error;
  if (const std::optional<Notebook> notebook = Notebook::parse(text, error)) {
    for (const NotebookCell& cell : notebook->cells()) {
      if (cell.moduleStart > cell.moduleEnd || cell.moduleEnd > notebook->module().size() ||
          cell.valueStart > cell.valueEnd || cell.valueEnd > text.size()) {
        std::abort();
      }
      // The bytes located as the cell's "source" value are the value the parser read.
      const nlohmann::json value = nlohmann::json::parse(
          text.substr(cell.valueStart, cell.valueEnd - cell.valueStart), nullptr, false);
      std::string code;
      if (value.is_string()) {
        code = value.get<std::string>();
      } else if (value.is_array()) {
        for (const nlohmann::json& piece : value) code += piece.get<std::string>();
      } else {
        std::abort();
      }
      if (code != cell.code) std::abort();
      for (uint32_t line = 0; line < cell.lineCount; ++line) {
        (void)notebook->filePosition(cell, line);
      }
    }
    for (uint32_t line = 0; line < 4; ++line) (void)notebook->cellAtLine(line);
    (void)notebook->cellAtByte(static_cast<uint32_t>(notebook->module().size()));
    (void)notebook->applyEdits({});
  } else if (error.empty() || error.find("[json.") != std::string::npos) {
    std::abort();
  }
  for (bool prefilter : {true, false}) {
    CheckOptions options;
    options.prefilter = prefilter;
    options.threads = 1;
    const CheckResult result = runCheck({inputFor(text)}, options);
    checkErrors(result);
    renderEveryFormat(result);
  }
  CheckOptions options;
  options.threads = 1;
  const FixRun fixes = runFixes({inputFor(text)}, options, /*unsafe=*/true);
  checkErrors(fixes.remaining);
  renderEveryFormat(fixes.remaining);
  for (const FixedFile& file : fixes.files) {
    if (file.original != text) std::abort(); // the original is what was read, unchanged
    (void)unifiedDiff(file.path, file.original, file.fixed);
    // A fixed notebook is still a notebook.
    std::string fixedError;
    if (!Notebook::parse(file.fixed, fixedError)) std::abort();
  }
  return 0;
}
