#include "rules/fix_support.h"

#include "checkers/python/syntax.h"

#include <algorithm>
#include <cctype>

namespace gradlint::rules {

using python::Kind;
using python::kindOf;

FixSyntax::FixSyntax(const SourceText& source)
    : source_(source), chunks_(python::splitTopLevel(source.bytes(), source.contentStart())) {}

FixSyntax::~FixSyntax() {
  for (auto& [index, tree] : parsed_) {
    if (tree != nullptr) ts_tree_delete(tree);
  }
}

TSTree* FixSyntax::parse(uint32_t startByte, uint32_t endByte) const {
  const std::string& bytes = source_.bytes();
  if (bytes.find('\0') != std::string::npos) return nullptr;
  TSParser* parser = ts_parser_new();
  ts_parser_set_language(parser, python::pythonLanguage());
  // Offsets stay relative to the whole file, as the IR's are.
  const uint32_t startLine = source_.lineOf(startByte);
  const uint32_t endLine = source_.lineOf(endByte);
  TSRange range{};
  range.start_point = {startLine, startByte - source_.lineStart(startLine)};
  range.end_point = {endLine, endByte - source_.lineStart(endLine)};
  range.start_byte = startByte;
  range.end_byte = endByte;
  ts_parser_set_included_ranges(parser, &range, 1);
  TSTree* tree = ts_parser_parse_string(parser, nullptr, bytes.data(),
                                        static_cast<uint32_t>(bytes.size()));
  ts_parser_delete(parser);
  if (tree != nullptr && ts_node_has_error(ts_tree_root_node(tree))) {
    ts_tree_delete(tree);
    tree = nullptr;
  }
  return tree;
}

const TSTree* FixSyntax::treeFor(uint32_t startByte, uint32_t endByte) const {
  // The chunk holding startByte: the last one that starts at or before it.
  const auto after = std::upper_bound(
      chunks_.begin(), chunks_.end(), startByte,
      [](uint32_t byte, const python::SourceChunk& chunk) { return byte < chunk.start; });
  size_t index = chunks_.size(); // the whole file
  if (after != chunks_.begin()) {
    const auto chunk = std::prev(after);
    if (chunk->definition && endByte <= chunk->end) {
      index = static_cast<size_t>(chunk - chunks_.begin());
    }
  }
  const auto [entry, inserted] = parsed_.try_emplace(index);
  if (inserted) {
    entry->second =
        index < chunks_.size()
            ? parse(chunks_[index].start, chunks_[index].end)
            : parse(source_.contentStart(), static_cast<uint32_t>(source_.bytes().size()));
  }
  return entry->second;
}

std::string_view FixSyntax::text(TSNode node) const { return python::text(node, source_.bytes()); }

uint32_t FixSyntax::startLine(TSNode node) const {
  return source_.lineOf(ts_node_start_byte(node));
}

uint32_t FixSyntax::endLine(TSNode node) const {
  const uint32_t end = ts_node_end_byte(node);
  return source_.lineOf(end > ts_node_start_byte(node) ? end - 1 : end);
}

TSNode FixSyntax::nodeAt(const ir::SourceRange& range) const {
  const TSTree* tree = treeFor(range.startByte, range.endByte);
  if (tree == nullptr) return TSNode{};
  TSNode node =
      ts_node_descendant_for_byte_range(ts_tree_root_node(tree), range.startByte, range.endByte);
  if (ts_node_is_null(node) || ts_node_start_byte(node) != range.startByte ||
      ts_node_end_byte(node) != range.endByte) {
    return TSNode{};
  }
  return node;
}

bool FixSyntax::onlyIndentationBefore(uint32_t byte) const {
  const uint32_t lineStart = source_.lineStart(source_.lineOf(byte));
  const std::string& bytes = source_.bytes();
  for (uint32_t at = lineStart; at < byte; ++at) {
    if (bytes[at] != ' ' && bytes[at] != '\t' && bytes[at] != '\f') return false;
  }
  return true;
}

bool FixSyntax::onlyCommentAfter(uint32_t byte) const {
  const std::string& bytes = source_.bytes();
  for (size_t at = byte; at < bytes.size(); ++at) {
    const char c = bytes[at];
    if (c == '\n' || c == '\r' || c == '#') return true;
    if (c != ' ' && c != '\t' && c != '\f') return false;
  }
  return true;
}

bool FixSyntax::isStandaloneCallStatement(TSNode statement) const {
  if (ts_node_is_null(statement) || kindOf(statement) != Kind::expression_statement ||
      ts_node_named_child_count(statement) != 1) {
    return false;
  }
  const TSNode call = ts_node_named_child(statement, 0);
  if (kindOf(call) != Kind::call || ts_node_start_byte(call) != ts_node_start_byte(statement) ||
      ts_node_end_byte(call) != ts_node_end_byte(statement)) {
    return false;
  }
  const TSNode parent = ts_node_parent(statement);
  if (ts_node_is_null(parent) ||
      (kindOf(parent) != Kind::block && kindOf(parent) != Kind::module)) {
    return false;
  }
  return onlyIndentationBefore(ts_node_start_byte(statement)) &&
         onlyCommentAfter(ts_node_end_byte(statement));
}

TSNode FixSyntax::standaloneCallStatement(const ir::SourceRange& range) const {
  const TSNode call = nodeAt(range);
  if (ts_node_is_null(call) || kindOf(call) != Kind::call) return TSNode{};
  const TSNode statement = ts_node_parent(call);
  return isStandaloneCallStatement(statement) ? statement : TSNode{};
}

TSNode FixSyntax::statementStartingLine(const ir::SourceRange& range) const {
  TSNode statement = nodeAt(range);
  while (!ts_node_is_null(statement)) {
    const TSNode parent = ts_node_parent(statement);
    if (ts_node_is_null(parent)) return TSNode{};
    if (kindOf(parent) == Kind::block || kindOf(parent) == Kind::module) break;
    statement = parent;
  }
  if (ts_node_is_null(statement) || !onlyIndentationBefore(ts_node_start_byte(statement))) {
    return TSNode{};
  }
  return statement;
}

std::vector<TSNode> FixSyntax::followingStatements(TSNode statement) const {
  std::vector<TSNode> following;
  for (TSNode next = ts_node_next_named_sibling(statement); !ts_node_is_null(next);
       next = ts_node_next_named_sibling(next)) {
    if (kindOf(next) != Kind::comment) following.push_back(next);
  }
  return following;
}

std::vector<Edit> FixSyntax::indentLines(uint32_t firstLine, uint32_t lastLine,
                                         std::string_view unit) const {
  std::vector<Edit> edits;
  if (firstLine > lastLine || lastLine >= source_.lineCount()) return edits;
  const uint32_t regionStart = source_.lineStart(firstLine);
  const uint32_t regionEnd = lastLine + 1 < source_.lineCount()
                                 ? source_.lineStart(lastLine + 1)
                                 : static_cast<uint32_t>(source_.bytes().size());
  const TSTree* tree = treeFor(regionStart, regionEnd);
  if (tree == nullptr) return edits;
  // Lines that begin inside a string literal spanning several lines, found by walking the
  // nodes that overlap the region (with a cursor: no recursion over the input).
  std::vector<bool> insideString(lastLine - firstLine + 1, false);
  TSTreeCursor cursor = ts_tree_cursor_new(ts_tree_root_node(tree));
  while (true) {
    const TSNode node = ts_tree_cursor_current_node(&cursor);
    const bool overlaps =
        ts_node_start_byte(node) < regionEnd && ts_node_end_byte(node) > regionStart;
    if (overlaps && kindOf(node) == Kind::string) {
      const uint32_t from = std::max(startLine(node) + 1, firstLine);
      const uint32_t to = std::min(endLine(node), lastLine);
      for (uint32_t line = from; line <= to; ++line) insideString[line - firstLine] = true;
    } else if (overlaps && ts_tree_cursor_goto_first_child(&cursor)) {
      continue;
    }
    bool advanced = false;
    while (!(advanced = ts_tree_cursor_goto_next_sibling(&cursor))) {
      if (!ts_tree_cursor_goto_parent(&cursor)) break;
    }
    if (!advanced) break;
  }
  ts_tree_cursor_delete(&cursor);

  for (uint32_t line = firstLine; line <= lastLine; ++line) {
    const std::string_view content = source_.lineText(line);
    const bool blank = content.find_first_not_of(" \t\f\r") == std::string_view::npos;
    if (blank || insideString[line - firstLine]) continue;
    const uint32_t at = source_.lineStart(line);
    edits.push_back(Edit{at, at, std::string(unit)});
  }
  return edits;
}

std::string FixSyntax::indentUnit(uint32_t line) const {
  const std::string_view content = source_.lineText(line);
  const size_t indentEnd = content.find_first_not_of(" \t\f");
  const std::string_view indentation = content.substr(0, std::min(indentEnd, content.size()));
  return indentation.find('\t') != std::string_view::npos ? "\t" : "    ";
}

Edit FixSyntax::deleteLines(TSNode statement) const {
  const uint32_t first = startLine(statement);
  const uint32_t last = endLine(statement);
  const uint32_t start = source_.lineStart(first);
  const uint32_t end = last + 1 < source_.lineCount()
                           ? source_.lineStart(last + 1)
                           : static_cast<uint32_t>(source_.bytes().size());
  return Edit{start, end, ""};
}

size_t wordCount(std::string_view text, std::string_view name) {
  auto isWord = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  size_t count = 0;
  if (name.empty()) return count;
  for (size_t at = text.find(name); at != std::string_view::npos; at = text.find(name, at + 1)) {
    const bool startsWord = at == 0 || !isWord(text[at - 1]);
    const bool endsWord = at + name.size() == text.size() || !isWord(text[at + name.size()]);
    count += startsWord && endsWord;
  }
  return count;
}

std::vector<std::string_view> dottedParts(TSNode expression, std::string_view source) {
  const python::Fields& f = python::fields();
  std::vector<std::string_view> parts;
  TSNode node = expression;
  while (!ts_node_is_null(node) && kindOf(node) == Kind::attribute) {
    parts.push_back(python::text(python::field(node, f.attribute), source));
    node = python::field(node, f.object);
  }
  if (ts_node_is_null(node) || kindOf(node) != Kind::identifier) return {};
  parts.push_back(python::text(node, source));
  std::reverse(parts.begin(), parts.end());
  return parts;
}

std::vector<std::string_view> splitQualified(std::string_view qualified) {
  std::vector<std::string_view> parts;
  size_t start = 0;
  while (true) {
    const size_t dot = qualified.find('.', start);
    parts.push_back(qualified.substr(start, dot - start));
    if (dot == std::string_view::npos) break;
    start = dot + 1;
  }
  return parts;
}

} // namespace gradlint::rules
