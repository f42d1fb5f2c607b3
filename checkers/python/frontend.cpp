#include "checkers/python/frontend.h"

#include "checkers/catalog/grad_mode_api.h"
#include "checkers/python/chunks.h"
#include "checkers/python/lowering.h"
#include "checkers/python/names.h"
#include "checkers/python/syntax.h"

#include <fmt/format.h>

#include <algorithm>
#include <memory>
#include <optional>
#include <unordered_map>

namespace gradlint::python {
namespace {

// tree-sitter 0.20.7 frees a subtree twice while recovering from more than 65,535 unclosed
// brackets (found by test/robustness/deep_nesting_100k.test); CPython itself refuses more than
// 200 nested ones. A file with more than this many brackets open at once is not parsed.
constexpr uint32_t kMaxBracketDepth = 60'000;

// The offset of the first bracket that opens more than kMaxBracketDepth at once, if any.
// Brackets in strings and comments count too: only absurd files come near the limit.
std::optional<uint32_t> tooDeepBracket(std::string_view text) {
  uint32_t depth = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '(' || c == '[' || c == '{') {
      if (++depth > kMaxBracketDepth) return static_cast<uint32_t>(i);
    } else if ((c == ')' || c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return std::nullopt;
}

class Parser {
public:
  Parser() : parser_(ts_parser_new()) { ts_parser_set_language(parser_, pythonLanguage()); }
  ~Parser() { ts_parser_delete(parser_); }
  Parser(const Parser&) = delete;
  Parser& operator=(const Parser&) = delete;

  // Parses the given byte ranges of `bytes` (the file's text, or a same-length normalised
  // copy) as one document, keeping positions relative to the whole file.
  TSTree* parse(const SourceText& source, std::string_view bytes,
                const std::vector<ByteRange>& ranges, const TSTree* oldTree = nullptr) {
    std::vector<TSRange> included;
    included.reserve(ranges.size());
    for (const ByteRange& r : ranges) {
      TSRange range{};
      const uint32_t startLine = source.lineOf(r.start);
      const uint32_t endLine = source.lineOf(r.end);
      range.start_point = {startLine, r.start - source.lineStart(startLine)};
      range.end_point = {endLine, r.end - source.lineStart(endLine)};
      range.start_byte = r.start;
      range.end_byte = r.end;
      included.push_back(range);
    }
    const bool whole = ranges.size() == 1 && ranges.front().start == 0 &&
                       ranges.front().end == bytes.size();
    if (!whole) {
      ts_parser_set_included_ranges(parser_, included.data(),
                                    static_cast<uint32_t>(included.size()));
    }
    TSTree* tree = ts_parser_parse_string(parser_, oldTree, bytes.data(),
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
  TSNode found{};
  if (!ts_node_has_error(root)) return found;
  walkPreorder(root, [&](TSNode node) {
    if (ts_node_is_missing(node) || kindOf(node) == Kind::ERROR) {
      found = node;
      return Walk::Stop;
    }
    return ts_node_has_error(node) ? Walk::Descend : Walk::Skip;
  });
  return found;
}

// The token to blame inside an ERROR node: a character the grammar has no token for (a
// childless ERROR), else the first token that is not a comment.
TSNode unexpectedToken(TSNode error) {
  TSNode firstToken{};
  TSNode invalid{};
  walkPreorder(error, [&](TSNode node) {
    const bool leaf = ts_node_child_count(node) == 0;
    if (leaf && kindOf(node) == Kind::ERROR && !ts_node_eq(node, error)) {
      invalid = node;
      return Walk::Stop;
    }
    if (leaf && isNull(firstToken) && kindOf(node) != Kind::comment &&
        ts_node_end_byte(node) > ts_node_start_byte(node)) {
      firstToken = node;
    }
    return Walk::Descend;
  });
  if (!isNull(invalid)) return invalid;
  return isNull(firstToken) ? error : firstToken;
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
    TSNode leaf = unexpectedToken(error);
    std::string_view token = text(leaf, source.bytes());
    if (auto newline = token.find_first_of("\r\n"); newline != std::string_view::npos) {
      token = token.substr(0, newline);
    }
    if (token.size() > 40) token = token.substr(0, 40);
    diagnostic.message = token.empty() ? std::string("invalid syntax")
                                       : fmt::format("invalid syntax: unexpected `{}`", token);
    diagnostic.range = source.range(ts_node_start_byte(leaf), ts_node_end_byte(leaf));
    if (const uint32_t at = ts_node_start_byte(leaf); conflictMarkerAt(source.bytes(), at)) {
      diagnostic.range = source.range(at, at + 7); // the seven marker characters
      const std::string_view line = source.lineText(diagnostic.range.startLine);
      diagnostic.message = fmt::format("invalid syntax: merge conflict marker `{}`",
                                       line.substr(0, std::min<size_t>(line.size(), 40)));
      diagnostic.help = "resolve the merge conflict: keep one side and delete the marker lines";
      return diagnostic;
    }
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

// The row and byte column reached after `text` (rows end at \n, as tree-sitter counts them).
TSPoint pointAfter(std::string_view text) {
  const size_t lastNewline = text.rfind('\n');
  const auto rows = static_cast<uint32_t>(std::count(text.begin(), text.end(), '\n'));
  const auto column = static_cast<uint32_t>(
      lastNewline == std::string_view::npos ? text.size() : text.size() - lastNewline - 1);
  return TSPoint{rows, column};
}

} // namespace

DocumentMemo::~DocumentMemo() {
  if (tree_ != nullptr) ts_tree_delete(tree_);
}

namespace {

bool isWhole(const std::vector<ByteRange>& ranges, std::string_view text) {
  return ranges.size() == 1 && ranges.front().end == text.size();
}

} // namespace

TSTree* DocumentMemo::editedFor(std::string_view text, const std::vector<ByteRange>& ranges) const {
  // Only a whole buffer's tree is kept (remember): the text's edit is the difference.
  if (tree_ == nullptr || !isWhole(ranges, text)) return nullptr;
  // One edit covering everything between the common prefix and the common suffix.
  const std::string_view old = text_;
  size_t prefix = 0;
  const size_t shorter = std::min(old.size(), text.size());
  while (prefix < shorter && old[prefix] == text[prefix]) ++prefix;
  size_t suffix = 0;
  while (suffix < shorter - prefix &&
         old[old.size() - 1 - suffix] == text[text.size() - 1 - suffix]) {
    ++suffix;
  }
  TSTree* tree = ts_tree_copy(tree_);
  if (prefix == old.size() && prefix == text.size()) return tree; // the same text
  TSInputEdit edit{};
  edit.start_byte = static_cast<uint32_t>(prefix);
  edit.old_end_byte = static_cast<uint32_t>(old.size() - suffix);
  edit.new_end_byte = static_cast<uint32_t>(text.size() - suffix);
  edit.start_point = pointAfter(text.substr(0, prefix));
  edit.old_end_point = pointAfter(old.substr(0, edit.old_end_byte));
  edit.new_end_point = pointAfter(text.substr(0, edit.new_end_byte));
  ts_tree_edit(tree, &edit);
  return tree;
}

void DocumentMemo::remember(std::string_view text, const std::vector<ByteRange>& ranges,
                            const TSTree* tree) {
  if (tree_ != nullptr) ts_tree_delete(tree_);
  tree_ = nullptr;
  text_.clear();
  // A tree parsed in part is not kept. A rescan that includes more ranges of the same text
  // would have to mark each added region changed, and after the first change tree-sitter's
  // Python parse reuses almost nothing (it lexes the rest of the file again): measured on a
  // 394 KB file, such a re-parse took 0.85-0.95x a fresh one, while the tree held megabytes.
  if (tree == nullptr || !isWhole(ranges, text)) return;
  tree_ = ts_tree_copy(tree);
  text_.assign(text);
}

bool parseOnly(const SourceText& source) {
  const std::vector<ByteRange> whole{
      {source.contentStart(), static_cast<uint32_t>(source.bytes().size())}};
  TreePtr tree(threadParser().parse(source, source.bytes(), whole));
  return tree != nullptr;
}

namespace {

// A notebook's parses leave out what IPython strips from its cells (Notebook::prompts()):
// `ranges` less those bytes. Both are in order.
std::vector<ByteRange> withoutPrompts(const SourceText& source, std::vector<ByteRange> ranges) {
  const Notebook* notebook = source.notebook();
  if (notebook == nullptr || notebook->prompts().empty()) return ranges;
  const auto& prompts = notebook->prompts();
  std::vector<ByteRange> kept;
  auto prompt = prompts.begin();
  for (const ByteRange& range : ranges) {
    uint32_t start = range.start;
    while (prompt != prompts.end() && prompt->first + prompt->second <= start) ++prompt;
    for (auto it = prompt; it != prompts.end() && it->first < range.end; ++it) {
      if (it->first > start) kept.push_back({start, it->first});
      start = std::max(start, it->first + it->second);
    }
    if (start < range.end) kept.push_back({start, range.end});
  }
  return kept;
}

} // namespace

bool hasSyntaxError(const SourceText& source) {
  const std::vector<ByteRange> whole = withoutPrompts(
      source, {{source.contentStart(), static_cast<uint32_t>(source.bytes().size())}});
  TreePtr tree(threadParser().parse(source, source.bytes(), whole));
  return tree != nullptr && !isNull(firstSyntaxError(ts_tree_root_node(tree.get())));
}

namespace {

// Python ends a line at a lone CR; the grammar does not. Parse a copy with each lone CR made
// LF: same length, so every offset stays valid for the original text.
std::string_view parseableText(const std::string& bytes, std::string& normalised) {
  const size_t first = bytes.find('\r');
  if (first == std::string::npos) return bytes;
  bool lone = false;
  for (size_t i = first; i < bytes.size() && !lone; ++i) {
    lone = bytes[i] == '\r' && (i + 1 == bytes.size() || bytes[i + 1] != '\n');
  }
  if (!lone) return bytes;
  normalised = bytes;
  for (size_t i = first; i < normalised.size(); ++i) {
    if (normalised[i] == '\r' && (i + 1 == normalised.size() || normalised[i + 1] != '\n')) {
      normalised[i] = '\n';
    }
  }
  return normalised;
}

// A notebook's kernel compiles each cell on its own, so a syntax error belongs to one cell, and
// "Run all" stops there. Parsed together, error recovery can blame a valid cell far from the
// broken one (a pasted output in cell 10 reported at cell 4, line 1), and a second broken cell
// goes unreported. Parses each cell of `parsed` alone: each broken cell gets its own GL000, at
// its first error, and `kept` is left with the other cells' ranges. False when no cell alone
// is broken (the error needs several cells: left to the whole-module handling).
bool parseNotebookCells(const SourceText& source, std::string_view text,
                        const std::vector<ByteRange>& parsed, PythonFileResult& result,
                        std::vector<ByteRange>& kept) {
  std::vector<ByteRange> cellsKept;
  std::vector<Diagnostic> broken;
  for (const NotebookCell& cell : source.notebook()->cells()) {
    // With the joining newline, so that the last line of a cell ends before the next cell's.
    const uint32_t cellEnd = std::min<uint32_t>(cell.moduleEnd + 1, text.size());
    std::vector<ByteRange> pieces;
    for (const ByteRange& range : parsed) {
      const uint32_t start = std::max(cell.moduleStart, range.start);
      const uint32_t end = std::min(cellEnd, range.end);
      if (start < end) pieces.push_back({start, end});
    }
    if (pieces.empty()) continue;
    TreePtr tree(threadParser().parse(source, text, pieces));
    const TSNode error = tree ? firstSyntaxError(ts_tree_root_node(tree.get())) : TSNode{};
    if (tree && isNull(error)) {
      cellsKept.insert(cellsKept.end(), pieces.begin(), pieces.end());
    } else if (tree) {
      broken.push_back(syntaxDiagnostic(source, error));
    }
  }
  if (broken.empty()) return false;
  for (Diagnostic& diagnostic : broken) {
    result.frontendDiagnostics.push_back(std::move(diagnostic));
  }
  // Adjacent pieces merge: tree-sitter's included ranges must not touch, and fewer are cheaper.
  kept.clear();
  for (const ByteRange& range : cellsKept) {
    if (!kept.empty() && kept.back().end == range.start) {
      kept.back().end = range.end;
    } else {
      kept.push_back(range);
    }
  }
  if (kept.empty()) kept.push_back({0, 0});
  return true;
}

} // namespace

PythonFileResult analyzePythonFile(const SourceText& source, const ModuleContext& context,
                                   const std::vector<ByteRange>& ranges, DocumentMemo* memo) {
  PythonFileResult result;
  result.module.path = source.path();
  result.module.moduleName = context.moduleName;
  result.module.inPackage = context.inPackage;
  result.module.topLevelIsSession = context.session;

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
  if (const std::optional<uint32_t> bracket = tooDeepBracket(bytes)) {
    Diagnostic diagnostic;
    diagnostic.code = "GL000";
    diagnostic.message = fmt::format(
        "invalid syntax: too many nested brackets (more than {} open at once)", kMaxBracketDepth);
    diagnostic.help = "CPython allows 200; gradlint does not analyse this file";
    diagnostic.range = source.range(*bracket, *bracket + 1);
    result.frontendDiagnostics.push_back(std::move(diagnostic));
    return result;
  }

  std::string normalised;
  const std::string_view text = parseableText(bytes, normalised);
  const std::vector<ByteRange> parsed = withoutPrompts(
      source, ranges.empty() ? std::vector<ByteRange>{{source.contentStart(), size}} : ranges);
  std::vector<TreePtr> trees;
  if (memo != nullptr) {
    TreePtr previous(memo->editedFor(text, parsed));
    trees.emplace_back(threadParser().parse(source, text, parsed, previous.get()));
    memo->remember(text, parsed, trees.front().get());
  } else {
    trees.emplace_back(threadParser().parse(source, text, parsed));
  }
  if (!trees.front()) return result;
  const TSNode root = ts_tree_root_node(trees.front().get());
  std::vector<TSNode> roots{root};

  std::vector<ByteRange> lowered = parsed;
  if (TSNode error = firstSyntaxError(root);
      !isNull(error) && source.notebook() != nullptr &&
      parseNotebookCells(source, text, parsed, result, lowered)) {
    // Each broken cell is reported where it breaks and left out; the others parsed together.
    trees.emplace_back(threadParser().parse(source, text, lowered));
    roots.clear();
    if (trees.back()) roots.push_back(ts_tree_root_node(trees.back().get()));
  } else if (!isNull(error)) {
    result.frontendDiagnostics.push_back(wideIndentDiagnostic(source).value_or(
        syntaxDiagnostic(source, error)));
    // Error recovery can fold everything after a broken line into one ERROR node. Re-parse each
    // top-level chunk on its own so one typo does not hide the rest of the file.
    roots.clear();
    // A chunk may be parsed in pieces (a class header and some of its methods): together.
    for (const SourceChunk& chunk : splitTopLevel(text, source.contentStart())) {
      std::vector<ByteRange> pieces;
      for (const ByteRange& range : parsed) {
        const uint32_t start = std::max(chunk.start, range.start);
        const uint32_t end = std::min(chunk.end, range.end);
        if (start < end) pieces.push_back({start, end});
      }
      if (pieces.empty()) continue;
      trees.emplace_back(threadParser().parse(source, text, pieces));
      if (trees.back()) roots.push_back(ts_tree_root_node(trees.back().get()));
    }
  }

  // After a syntax error the roots are pieces parsed apart: lowered afresh, and the memo is
  // left as it was (the next, mended, text will match it better).
  const bool whole = roots.size() == 1 && ts_node_eq(roots.front(), root);
  lowerModule(source, context, roots, lowered, result,
              memo != nullptr && whole ? &memo->lowering() : nullptr);
  return result;
}

} // namespace gradlint::python
