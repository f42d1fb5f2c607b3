#include "tool/lsp/code_actions.h"

#include "tool/lsp/analysis.h"
#include "tool/lsp/lsp_diagnostics.h"
#include "tool/lsp/noqa_comment.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>
#include <utility>

namespace gradlint::lsp {
namespace {

nlohmann::json textEdit(const TextDocument& document, uint32_t startByte, uint32_t endByte,
                        const std::string& newText) {
  return {{"range", toJson(rangeOf(document, startByte, endByte))}, {"newText", newText}};
}

nlohmann::json workspaceEdit(const TextDocument& document, nlohmann::json edits) {
  return {{"changes", {{document.uri(), std::move(edits)}}}};
}

// The edit that silences `code` on the diagnostic's line, or null when none can: a bare
// `# noqa` already covers it, or the line ends inside a string or a continuation.
nlohmann::json noqaEdit(const TextDocument& document, uint32_t byte, const std::string& code) {
  const Position position = document.positionOf(byte);
  const std::string_view line = document.lineText(position.line);
  const uint32_t lineStart = document.offsetOf(Position{position.line, 0});
  const LineComment comment = findComment(line);
  if (comment.continues) return nullptr;
  if (comment.start != std::string_view::npos) {
    const NoqaDirective noqa = findNoqa(line, comment.start);
    if (noqa.found && noqa.bare) return nullptr;
    if (noqa.found) {
      // `# noqa: GL103` -> `# noqa: GL103, GL101`; a malformed `# noqa:` gets its first code.
      const std::string insert = noqa.codes.empty() ? " " + code : ", " + code;
      const auto at = static_cast<uint32_t>(lineStart + noqa.listEnd);
      return textEdit(document, at, at, insert);
    }
  }
  size_t end = line.size();
  while (end > 0 && (line[end - 1] == ' ' || line[end - 1] == '\t')) --end;
  const auto at = static_cast<uint32_t>(lineStart + end);
  return textEdit(document, at, static_cast<uint32_t>(lineStart + line.size()),
                  "  # noqa: " + code);
}

} // namespace

bool kindRequested(std::string_view kind, const std::vector<std::string>& only) {
  if (only.empty()) return true;
  return std::any_of(only.begin(), only.end(), [&](const std::string& wanted) {
    return kind == wanted || (kind.starts_with(wanted) && kind.size() > wanted.size() &&
                              kind[wanted.size()] == '.');
  });
}

nlohmann::json minimalEdit(const TextDocument& before, const std::string& after) {
  const std::string& text = before.text();
  size_t prefix = 0;
  while (prefix < text.size() && prefix < after.size() && text[prefix] == after[prefix]) ++prefix;
  size_t suffix = 0;
  while (suffix < text.size() - prefix && suffix < after.size() - prefix &&
         text[text.size() - 1 - suffix] == after[after.size() - 1 - suffix]) {
    ++suffix;
  }
  // Keep whole UTF-8 sequences on both sides of the replaced part.
  auto continuation = [](char c) { return (static_cast<unsigned char>(c) & 0xC0) == 0x80; };
  while (prefix > 0 && continuation(text[prefix])) --prefix;
  while (suffix > 0 && continuation(text[text.size() - suffix])) --suffix;
  return nlohmann::json::array(
      {textEdit(before, static_cast<uint32_t>(prefix), static_cast<uint32_t>(text.size() - suffix),
                after.substr(prefix, after.size() - suffix - prefix))});
}

nlohmann::json codeActions(const TextDocument& document, const std::vector<Diagnostic>& diagnostics,
                           const Range& range, const std::vector<std::string>& only) {
  nlohmann::json actions = nlohmann::json::array();
  const bool quickFixes = kindRequested("quickfix", only);
  std::set<std::pair<uint32_t, std::string>> silenced; // one noqa action per line and code
  bool anySafeFix = false;
  for (const Diagnostic& diagnostic : diagnostics) {
    if (diagnostic.fix && diagnostic.fix->applicability == Applicability::Safe) anySafeFix = true;
    const Position start = document.positionOf(diagnostic.range.startByte);
    const Position end = document.positionOf(diagnostic.range.endByte);
    if (!quickFixes || end.line < range.start.line || start.line > range.end.line) continue;
    const nlohmann::json lspDiagnostic = toLspDiagnostic(diagnostic, document);
    if (diagnostic.fix && !diagnostic.fix->edits.empty()) {
      nlohmann::json edits = nlohmann::json::array();
      for (const Edit& edit : diagnostic.fix->edits) {
        edits.push_back(textEdit(document, edit.startByte, edit.endByte, edit.replacement));
      }
      const bool safe = diagnostic.fix->applicability == Applicability::Safe;
      std::string title = diagnostic.fix->message.empty()
                              ? fmt::format("Fix {}", diagnostic.code)
                              : fmt::format("{}: {}", diagnostic.code, diagnostic.fix->message);
      if (!safe) title += " (unsafe)";
      actions.push_back({{"title", title},
                         {"kind", "quickfix"},
                         {"diagnostics", {lspDiagnostic}},
                         {"isPreferred", safe},
                         {"edit", workspaceEdit(document, std::move(edits))}});
    }
    // GL000 (a syntax error) is never suppressed, so offering to would be a lie.
    if (diagnostic.code == "GL000" || !silenced.emplace(start.line, diagnostic.code).second) {
      continue;
    }
    nlohmann::json edit = noqaEdit(document, diagnostic.range.startByte, diagnostic.code);
    if (edit.is_null()) continue;
    actions.push_back({{"title", fmt::format("Disable {} for this line", diagnostic.code)},
                       {"kind", "quickfix"},
                       {"diagnostics", {lspDiagnostic}},
                       {"edit", workspaceEdit(document, nlohmann::json::array({edit}))}});
  }
  if (anySafeFix && kindRequested(kFixAllKind, only)) {
    const std::optional<std::string> fixed = fixAllSafe(document.path(), document.text());
    if (fixed) {
      actions.push_back({{"title", "gradlint: fix all safe findings"},
                         {"kind", kFixAllKind},
                         {"edit", workspaceEdit(document, minimalEdit(document, *fixed))}});
    }
  }
  return actions;
}

} // namespace gradlint::lsp
