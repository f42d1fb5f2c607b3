// libFuzzer target: bytes -> one Python file through the whole check pipeline. The input is
// checked with every registered rule (preview ones included), with and without the grad-API
// prefilter, then its fixes (safe and unsafe) are applied and re-checked, and the findings are
// rendered in every output format. Any crash, hang, sanitizer report or broken invariant below
// is a bug: gradlint runs on every file of every repository, including broken ones.
// A checked file that is not UTF-8 stops at the encoding check (program/engine.cpp), so the
// input's invalid bytes are replaced by `?` first: every input reaches the parser and the rules
// (the check of undecodable files is a unit and lit test).
#include "program/engine.h"
#include "rules/rule.h"
#include "test/fuzz/fuzz_support.h"
#include "tool/fixes.h"
#include "tool/render.h"

#include <cstdint>
#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

namespace {

using namespace gradlint;

using fuzz::renderEveryFormat;

FileInput inputFor(std::string text) {
  return fuzz::inputFor("pkg/fuzzed.py", std::move(text));
}

// `bytes` with each byte that does not belong to a valid UTF-8 sequence (RFC 3629: no overlong
// forms, no surrogates, nothing above U+10FFFF) replaced by `?`.
std::string validUtf8(const uint8_t* data, size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  size_t at = 0;
  while (at < size) {
    const uint8_t lead = data[at];
    size_t length = 0;
    uint8_t low = 0x80;
    uint8_t high = 0xBF;
    if (lead < 0x80) {
      length = 1;
    } else if (lead >= 0xC2 && lead <= 0xDF) {
      length = 2;
    } else if (lead >= 0xE0 && lead <= 0xEF) {
      length = 3;
      if (lead == 0xE0) low = 0xA0;
      if (lead == 0xED) high = 0x9F;
    } else if (lead >= 0xF0 && lead <= 0xF4) {
      length = 4;
      if (lead == 0xF0) low = 0x90;
      if (lead == 0xF4) high = 0x8F;
    }
    bool valid = length > 0 && at + length <= size;
    for (size_t i = 1; valid && i < length; ++i) {
      const uint8_t next = data[at + i];
      valid = i == 1 ? next >= low && next <= high : next >= 0x80 && next <= 0xBF;
    }
    if (!valid) {
      text[at] = '?';
      length = 1;
    }
    at += length;
  }
  return text;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text = validUtf8(data, size);
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
