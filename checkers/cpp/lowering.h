// The C++ frontend's core: lowers the functions of a parsed translation unit to the Grad IR,
// from clang::CFG, with exception edges for calls that may throw and the destructors of guard
// objects on every way out of their scope. Shared by `gradlint check` (through LibTooling, see
// frontend.h) and the clang-tidy plugin (tool/tidy), which both hold a clang::ASTContext.
#pragma once

#include "checkers/ir/grad_ir.h"
#include "checkers/python/source_text.h"

#include <string>
#include <vector>

namespace clang {
class ASTContext;
} // namespace clang

namespace gradlint::cpp {

struct LoweredTranslationUnit {
  ir::ModuleIR module;
  std::vector<std::string> warnings; // functions that could not be analysed, and why
};

// Lowers every function, method, constructor, destructor and lambda whose definition is in the
// main file of `context` (not in headers, and not template instantiations: templates are
// analysed once, as written). `mainFile` must hold the main file's bytes: every range is
// computed from it, and events spelled in macros are placed at the macro's use.
LoweredTranslationUnit lowerTranslationUnit(clang::ASTContext& context,
                                            const SourceText& mainFile);

} // namespace gradlint::cpp
