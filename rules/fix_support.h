// The syntax a fix needs around a finding. Events carry byte ranges, but rewriting
// `torch.no_grad()` into a `with` block needs the statement, its block and which lines may be
// indented, so a rule with a fix candidate re-parses through FixSyntax: only the top-level
// definition around the finding (the editor re-checks on every edit: a whole 5,000-line file
// cost a quarter of the check), or the whole file for module-level code, whose statements may
// run on past a definition.
#pragma once

#include "checkers/ir/diagnostic.h"
#include "checkers/python/chunks.h"
#include "checkers/python/source_text.h"

#include <tree_sitter/api.h>

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gradlint::rules {

class FixSyntax {
public:
  explicit FixSyntax(const SourceText& source);
  ~FixSyntax();
  FixSyntax(const FixSyntax&) = delete;
  FixSyntax& operator=(const FixSyntax&) = delete;

  const SourceText& source() const { return source_; }
  std::string_view text(TSNode node) const;

  // The smallest node spanning exactly [startByte, endByte), or a null node.
  TSNode nodeAt(const ir::SourceRange& range) const;

  // The expression statement made of exactly the call at `range`, when it stands alone on its
  // lines (nothing but indentation before it; nothing but spaces or a comment after it) directly
  // in a block or at module level. Null otherwise. Only such statements can be turned into a
  // `with` header or deleted without touching their neighbours.
  TSNode standaloneCallStatement(const ir::SourceRange& range) const;
  bool isStandaloneCallStatement(TSNode statement) const;

  // The statement holding the node at `range`, when it sits directly in a block or at module
  // level and starts its line: a new statement can go on the line before it, indented alike.
  // Null otherwise.
  TSNode statementStartingLine(const ir::SourceRange& range) const;

  // The statements that follow `statement` in its block, comments left out.
  std::vector<TSNode> followingStatements(TSNode statement) const;

  // Edits that indent every line in [firstLine, lastLine] by `unit`. Blank lines stay empty,
  // and lines that start inside a multi-line string are left alone: indenting them would change
  // the string's value.
  std::vector<Edit> indentLines(uint32_t firstLine, uint32_t lastLine, std::string_view unit) const;

  // One more level of indentation for the block starting at `line`: a tab when that line is
  // indented with tabs, four spaces otherwise.
  std::string indentUnit(uint32_t line) const;

  // An edit removing the whole lines of `statement`, line breaks included.
  Edit deleteLines(TSNode statement) const;

  // 0-based lines of a node's first and last byte.
  uint32_t startLine(TSNode node) const;
  uint32_t endLine(TSNode node) const;

private:
  // The tree that covers [startByte, endByte): the parse of the top-level definition holding
  // both, else of the whole file. Null when that parse has syntax errors: no fix is offered in
  // code whose tree may not be what Python would read.
  const TSTree* treeFor(uint32_t startByte, uint32_t endByte) const;
  TSTree* parse(uint32_t startByte, uint32_t endByte) const;
  bool onlyIndentationBefore(uint32_t byte) const;
  bool onlyCommentAfter(uint32_t byte) const;

  const SourceText& source_;
  std::vector<python::SourceChunk> chunks_;
  // Parsed on demand, by chunk index; the whole file under the index chunks_.size(). Null: not
  // parseable (NUL bytes) or with syntax errors.
  mutable std::map<size_t, TSTree*> parsed_;
};

// How often `name` occurs as a whole identifier in `text` (strings and comments included: a fix
// that picks a fresh name or drops a variable errs on the side of leaving code alone).
size_t wordCount(std::string_view text, std::string_view name);

// The dotted parts of a callee as spelled (`th`, `_C`, `_set_grad_enabled`), when it is a plain
// attribute chain on a name; empty otherwise (calls, subscripts in the chain).
std::vector<std::string_view> dottedParts(TSNode expression, std::string_view source);

// Splits "torch._C._set_grad_enabled" at the dots.
std::vector<std::string_view> splitQualified(std::string_view qualified);

} // namespace gradlint::rules
