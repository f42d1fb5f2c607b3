// libFuzzer target: bytes -> a summary file (`gradlint check --summaries FILE`, written by
// `gradlint summarize -o FILE`; docs/context.md#summary-files). Build systems pass these files
// between actions, so a corrupt one must be refused with a message in words (the command adds
// the file's name and exits 2), never crash. A file that is read is then used as `check` uses
// it: a Python file that imports and calls each summarised name (with arguments, inside a
// training loop and a `with`) is checked with every rule against those summaries, and the
// findings, whose notes point at the summaries' toggles, are rendered in every output format.
#include "program/engine.h"
#include "program/summary_store.h"
#include "rules/rule.h"
#include "test/fuzz/fuzz_support.h"
#include "tool/render.h"

#include <cctype>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

namespace {

using namespace gradlint;

using fuzz::everyRuleCode;

// `a.b.c` made of Python identifiers (ASCII): a name a file can import.
bool isDottedName(const std::string& name) {
  if (name.empty() || name.size() > 200) return false;
  bool atStart = true;
  for (char c : name) {
    if (c == '.') {
      if (atStart) return false;
      atStart = true;
      continue;
    }
    const bool letter = std::isalpha(static_cast<unsigned char>(c)) || c == '_';
    if (!letter && (atStart || !std::isdigit(static_cast<unsigned char>(c)))) return false;
    atStart = false;
  }
  return !atStart;
}

// A caller of every summarised name: `from a.b import c`, then calls with arguments in a loop
// that trains, and as a context manager.
std::string callerOf(const ir::SummaryTable& table) {
  std::string imports = "import torch\n";
  std::string body = "def train(model, batch, opt, x, y):\n"
                     "    for step in range(3):\n";
  size_t count = 0;
  for (const auto& [name, summary] : table.all()) {
    if (!isDottedName(name) || ++count > 16) continue;
    const size_t dot = name.rfind('.');
    const std::string alias = "f" + std::to_string(count);
    if (dot == std::string::npos) {
      imports += "import " + name + " as " + alias + "\n";
    } else {
      imports += "from " + name.substr(0, dot) + " import " + name.substr(dot + 1) + " as " +
                 alias + "\n";
    }
    body += "        " + alias + "(model, x, y, batch)\n"
            "        with " + alias + "(x):\n"
            "            pass\n"
            "        " + alias + "().method(model)\n";
  }
  body += "        loss = model(batch).sum()\n"
          "        loss.backward()\n"
          "        opt.step()\n";
  return imports + body;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  auto table = std::make_shared<ir::SummaryTable>();
  std::string error;
  if (!readSummaries(text, *table, error)) {
    // Refused in words: never empty, never the JSON library's exception tags. The message
    // may quote the file ("last read: '...'"), which may hold anything: only the words before
    // the quote count.
    const std::string_view words = std::string_view(error).substr(0, error.find("last read:"));
    if (error.empty() || words.find("[json.") != std::string_view::npos) std::abort();
    return 0;
  }
  FileInput input;
  input.ref.path = "pkg/caller.py";
  input.ref.moduleName = "pkg.caller";
  input.ref.inPackage = true;
  input.contents = callerOf(*table);
  static const auto kAllCodes = std::make_shared<const std::vector<std::string>>(everyRuleCode());
  input.enabledRules = kAllCodes;
  CheckOptions options;
  options.threads = 1;
  options.knownSummaries = table;
  options.knownSummariesKey = text;
  const CheckResult result = runCheck({input}, options);
  for (OutputFormat format : {OutputFormat::Full, OutputFormat::Concise, OutputFormat::Json,
                              OutputFormat::Sarif, OutputFormat::Junit}) {
    std::ostringstream out;
    render(result, format, out);
  }
  return 0;
}
