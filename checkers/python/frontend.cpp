#include "checkers/python/frontend.h"

#include "checkers/python/lowering.h"
#include "checkers/python/names.h"
#include "checkers/python/syntax.h"
#include "rules/grad_mode_api.h"

#include <fmt/format.h>

#include <memory>
#include <optional>
#include <unordered_map>

namespace gradlint::python {
namespace {

class Parser {
public:
  Parser() : parser_(ts_parser_new()) { ts_parser_set_language(parser_, pythonLanguage()); }
  ~Parser() { ts_parser_delete(parser_); }
  Parser(const Parser&) = delete;
  Parser& operator=(const Parser&) = delete;

  // Parses bytes [start, end) of the file, keeping positions relative to the whole file.
  TSTree* parse(const SourceText& source, uint32_t start, uint32_t end) {
    const std::string& bytes = source.bytes();
    TSRange range{};
    const uint32_t startLine = source.lineOf(start);
    const uint32_t endLine = source.lineOf(end);
    range.start_point = {startLine, start - source.lineStart(startLine)};
    range.end_point = {endLine, end - source.lineStart(endLine)};
    range.start_byte = start;
    range.end_byte = end;
    const bool whole = start == 0 && end == bytes.size();
    if (!whole) ts_parser_set_included_ranges(parser_, &range, 1);
    TSTree* tree = ts_parser_parse_string(parser_, nullptr, bytes.data(),
                                          static_cast<uint32_t>(bytes.size()));
    if (!whole) ts_parser_set_included_ranges(parser_, nullptr, 0);
    return tree;
  }

private:
  TSParser* parser_;
};

Parser& threadParser() {
  thread_local Parser parser;
  return parser;
}

struct TreeDeleter {
  void operator()(TSTree* tree) const { ts_tree_delete(tree); }
};
using TreePtr = std::unique_ptr<TSTree, TreeDeleter>;

// The first ERROR or MISSING node in document order, descending only into subtrees with errors.
TSNode firstSyntaxError(TSNode root) {
  if (!ts_node_has_error(root)) return TSNode{};
  TSTreeCursor cursor = ts_tree_cursor_new(root);
  TSNode found{};
  while (true) {
    TSNode node = ts_tree_cursor_current_node(&cursor);
    if (ts_node_is_missing(node) || kindOf(node) == Kind::ERROR) {
      found = node;
      break;
    }
    if (ts_node_has_error(node) && ts_tree_cursor_goto_first_child(&cursor)) continue;
    bool moved = false;
    while (!(moved = ts_tree_cursor_goto_next_sibling(&cursor))) {
      if (!ts_tree_cursor_goto_parent(&cursor)) break;
    }
    if (!moved) break;
  }
  ts_tree_cursor_delete(&cursor);
  return found;
}

Diagnostic syntaxDiagnostic(const SourceText& source, TSNode error) {
  Diagnostic diagnostic;
  diagnostic.code = "GL000";
  diagnostic.severity = Severity::Error;
  const uint32_t start = ts_node_start_byte(error);
  if (ts_node_is_missing(error)) {
    diagnostic.message = fmt::format("invalid syntax: expected `{}`", ts_node_type(error));
    diagnostic.range = source.range(start, start);
  } else {
    TSNode leaf = error;
    while (ts_node_child_count(leaf) > 0) leaf = ts_node_child(leaf, 0);
    std::string_view token = text(leaf, source.bytes());
    if (auto newline = token.find_first_of("\r\n"); newline != std::string_view::npos) {
      token = token.substr(0, newline);
    }
    if (token.size() > 40) token = token.substr(0, 40);
    diagnostic.message = token.empty() ? std::string("invalid syntax")
                                       : fmt::format("invalid syntax: unexpected `{}`", token);
    diagnostic.range = source.range(start, ts_node_end_byte(leaf));
  }
  diagnostic.help = "gradlint still analyses the definitions that parse; fix the syntax so the "
                    "rest of the file is checked too";
  return diagnostic;
}

// tree-sitter-python 0.23.6's scanner stores indents in one byte when it serialises its state,
// so a line indented 256 columns or more derails the parse of otherwise valid code. Say that,
// instead of pointing at whatever token the derailed parse stumbled on.
std::optional<Diagnostic> wideIndentDiagnostic(const SourceText& source) {
  constexpr uint32_t kWidestIndent = 255;
  for (uint32_t line = 0; line < source.lineCount(); ++line) {
    const std::string_view text = source.lineText(line);
    uint32_t width = 0;
    size_t at = 0;
    for (; at < text.size() && (text[at] == ' ' || text[at] == '\t'); ++at) {
      width = text[at] == '\t' ? (width / 8 + 1) * 8 : width + 1;
    }
    if (width <= kWidestIndent || at == text.size()) continue;
    Diagnostic diagnostic;
    diagnostic.code = "GL000";
    diagnostic.message = fmt::format(
        "cannot parse: this line is indented {} columns, more than the {} gradlint's Python "
        "grammar supports",
        width, kWidestIndent);
    diagnostic.help = "reduce the indentation (4-space indents allow 63 levels)";
    const uint32_t start = source.lineStart(line) + static_cast<uint32_t>(at);
    diagnostic.range = source.range(start, start);
    return diagnostic;
  }
  return std::nullopt;
}

// Start offsets of top-level definitions (`def`, `async def`, `class`, a decorator) at column 0,
// outside strings, used to re-parse a broken file one definition at a time.
std::vector<uint32_t> definitionStarts(const SourceText& source, TSNode root) {
  std::vector<uint32_t> starts;
  bool previousWasDecorator = false;
  for (uint32_t line = 0; line < source.lineCount(); ++line) {
    std::string_view text = source.lineText(line);
    if (text.empty() || text.find_first_not_of(" \t") == std::string_view::npos) continue;
    const bool decorator = text.starts_with("@");
    const bool definition = decorator || text.starts_with("def ") ||
                            text.starts_with("async def ") || text.starts_with("class ");
    if (definition && !previousWasDecorator) {
      const uint32_t byte = source.lineStart(line);
      TSNode at = ts_node_descendant_for_byte_range(root, byte, byte);
      bool inString = false;
      for (TSNode n = at; !isNull(n) && !inString; n = ts_node_parent(n)) {
        inString = kindOf(n) == Kind::string;
        if (kindOf(n) == Kind::module) break;
      }
      if (!inString) starts.push_back(byte);
    }
    previousWasDecorator = decorator;
  }
  return starts;
}

} // namespace

bool parseOnly(const SourceText& source) {
  TreePtr tree(threadParser().parse(source, source.contentStart(),
                                    static_cast<uint32_t>(source.bytes().size())));
  return tree != nullptr;
}

PythonFileResult analyzePythonFile(const SourceText& source, const ModuleContext& context) {
  PythonFileResult result;
  result.module.path = source.path();
  result.module.moduleName = context.moduleName;
  result.module.inPackage = context.inPackage;

  const std::string& bytes = source.bytes();
  const auto size = static_cast<uint32_t>(bytes.size());
  if (auto nul = bytes.find('\0'); nul != std::string::npos) {
    // CPython refuses such files outright; so do we, with the position.
    Diagnostic diagnostic;
    diagnostic.code = "GL000";
    diagnostic.message = "invalid syntax: source code cannot contain null bytes";
    diagnostic.help = "this looks like a binary file; remove it or exclude it from the check";
    diagnostic.range = source.range(static_cast<uint32_t>(nul), static_cast<uint32_t>(nul) + 1);
    result.frontendDiagnostics.push_back(std::move(diagnostic));
    return result;
  }

  std::vector<TreePtr> trees;
  trees.emplace_back(threadParser().parse(source, source.contentStart(), size));
  if (!trees.front()) return result;
  const TSNode root = ts_tree_root_node(trees.front().get());
  std::vector<TSNode> roots{root};

  if (TSNode error = firstSyntaxError(root); !isNull(error)) {
    result.frontendDiagnostics.push_back(wideIndentDiagnostic(source).value_or(
        syntaxDiagnostic(source, error)));
    // Error recovery can fold everything after a broken line into one ERROR node. Re-parse each
    // top-level definition on its own so one typo does not hide the rest of the file.
    std::vector<uint32_t> starts = definitionStarts(source, root);
    if (starts.empty() || starts.front() != source.contentStart()) {
      starts.insert(starts.begin(), source.contentStart());
    }
    roots.clear();
    for (size_t i = 0; i < starts.size(); ++i) {
      const uint32_t end = i + 1 < starts.size() ? starts[i + 1] : size;
      if (end <= starts[i]) continue;
      trees.emplace_back(threadParser().parse(source, starts[i], end));
      if (trees.back()) roots.push_back(ts_tree_root_node(trees.back().get()));
    }
  }

  lowerModule(source, context, roots, result);
  return result;
}

} // namespace gradlint::python
