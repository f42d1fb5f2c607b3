// The Python frontend: parse with tree-sitter-python, resolve names, lower every function,
// lambda, class body and the module top level to the Grad IR.
#pragma once

#include "checkers/ir/diagnostic.h"
#include "checkers/ir/grad_ir.h"
#include "checkers/ir/suppressions.h"
#include "checkers/python/chunks.h"
#include "checkers/python/source_text.h"

#include <string>
#include <vector>

namespace gradlint::python {

struct ModuleContext {
  std::string moduleName;     // dotted; for a script outside packages, its stem
  bool isPackageInit = false; // the file is a package's __init__.py
  bool inPackage = false;     // its folder has __init__.py
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

// Parses and lowers `ranges` of the file (every other byte is skipped as if blank), or the whole
// file when `ranges` is empty. Positions are always those of the whole file.
PythonFileResult analyzePythonFile(const SourceText& source, const ModuleContext& context,
                                   const std::vector<ByteRange>& ranges = {});

// The bare parse, for benchmarks: parses and frees the tree.
bool parseOnly(const SourceText& source);

} // namespace gradlint::python
