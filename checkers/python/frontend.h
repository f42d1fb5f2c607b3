// The Python frontend: parse with tree-sitter-python, resolve names, lower every function,
// lambda, class body and the module top level to the Grad IR.
#pragma once

#include "checkers/ir/diagnostic.h"
#include "checkers/ir/grad_ir.h"
#include "checkers/ir/suppressions.h"
#include "checkers/python/chunks.h"
#include "checkers/python/lowering_memo.h"
#include "checkers/python/source_text.h"

#include <tree_sitter/api.h>

#include <string>
#include <string_view>
#include <vector>

namespace gradlint::python {

struct ModuleContext {
  std::string moduleName;     // dotted; for a script outside packages, its stem
  bool isPackageInit = false; // the file is a package's __init__.py
  bool inPackage = false;     // its folder has __init__.py
  // A notebook's cells: the top level is a kernel session that later cells continue.
  bool session = false;
};

struct PythonFileResult {
  ir::ModuleIR module;
  std::vector<Diagnostic> frontendDiagnostics; // GL000
  Suppressions suppressions;
  std::vector<std::string> warnings; // not findings: what could not be analysed, and why
};

// Python's own limit on indentation levels (tokenizer.c MAXINDENT): 100 levels are a syntax
// error there, and gradlint stops lowering at the same depth instead of recursing further.
inline constexpr int kMaxBlockDepth = 100;

// What the last analysis of a buffer that is analysed again and again (an editor's) leaves
// for the next: its tree, which the next parse edits by the difference between the two texts
// to reuse every unchanged subtree (tree-sitter's incremental parsing), and the lowering of each
// function and method (lowering_memo.h), reused while its text is unchanged. Not thread-safe:
// one analysis at a time.
class DocumentMemo {
public:
  DocumentMemo() = default;
  ~DocumentMemo();
  DocumentMemo(const DocumentMemo&) = delete;
  DocumentMemo& operator=(const DocumentMemo&) = delete;

  // A copy of the last tree, edited to match `text` (null when there is none, or when
  // `ranges` are not the whole text: only whole buffers keep their tree).
  TSTree* editedFor(std::string_view text, const std::vector<ByteRange>& ranges) const;
  // Keeps `tree` for the next parse when it covers the whole text; the lowering memo is kept
  // either way.
  void remember(std::string_view text, const std::vector<ByteRange>& ranges, const TSTree* tree);
  LoweringMemo& lowering() { return lowering_; }

private:
  std::string text_; // the text of tree_
  TSTree* tree_ = nullptr;
  LoweringMemo lowering_;
};

// Parses and lowers `ranges` of the file (every other byte is skipped as if blank), or the whole
// file when `ranges` is empty. Positions are always those of the whole file. With `memo`, the
// parse starts from the memo's last tree, unchanged definitions are not lowered again, and the
// memo is left holding this analysis.
PythonFileResult analyzePythonFile(const SourceText& source, const ModuleContext& context,
                                   const std::vector<ByteRange>& ranges = {},
                                   DocumentMemo* memo = nullptr);

// The bare parse, for benchmarks: parses and frees the tree.
bool parseOnly(const SourceText& source);
// Whether the text has a syntax error (parse only: nothing is lowered).
bool hasSyntaxError(const SourceText& source);

} // namespace gradlint::python
