#include "tool/lsp/hover.h"

#include "rules/rule.h"
#include "tool/lsp/lsp_diagnostics.h"
#include "tool/lsp/noqa_comment.h"
#include "tool/render.h"

#include <fmt/format.h>

namespace gradlint::lsp {
namespace {

// One line per rule the code selects: codes are prefixes, so `GL1` names several.
std::string describeCode(const std::string& code) {
  std::string text;
  for (const rules::Rule* rule : rules::allRules()) {
    const rules::RuleInfo& info = rule->info();
    if (!info.code.starts_with(code)) continue;
    text += fmt::format("**{}** `{}` ({}): {} [docs]({})\n\n", info.code, info.name,
                        toString(info.severity), info.summary, ruleUrl(info.code));
  }
  if (text.empty()) return fmt::format("`{}` matches no gradlint rule", code);
  while (text.back() == '\n') text.pop_back();
  return text;
}

} // namespace

nlohmann::json noqaHover(const TextDocument& document, Position position) {
  if (position.line >= document.lineCount()) return nullptr;
  const std::string_view line = document.lineText(position.line);
  const LineComment comment = findComment(line);
  if (comment.start == std::string_view::npos) return nullptr;
  const NoqaDirective noqa = findNoqa(line, comment.start);
  const size_t byte = byteOfUtf16Column(line, position.character);
  for (const NoqaCode& code : noqa.codes) {
    if (byte < code.start || byte > code.end) continue;
    const uint32_t lineStart = document.offsetOf(Position{position.line, 0});
    const Range range = rangeOf(document, static_cast<uint32_t>(lineStart + code.start),
                                static_cast<uint32_t>(lineStart + code.end));
    return {{"contents", {{"kind", "markdown"}, {"value", describeCode(code.code)}}},
            {"range", toJson(range)}};
  }
  return nullptr;
}

} // namespace gradlint::lsp
