// The C++ frontend's core: lowers the functions of a parsed translation unit to the Grad IR,
// from clang::CFG, with exception edges for calls that may throw and the destructors of guard
// objects on every way out of their scope. Shared by `gradlint check` (through LibTooling, see
// frontend.h) and the clang-tidy plugin (tool/tidy), which both hold a clang::ASTContext.
#pragma once

#include "checkers/ir/grad_ir.h"
#include "checkers/python/source_text.h"

#include <clang/Basic/SourceLocation.h>

#include <memory>
#include <string>
#include <vector>

namespace clang {
class ASTContext;
} // namespace clang
namespace llvm {
class StringRef;
} // namespace llvm

namespace gradlint::cpp {

// Which headers' functions are lowered too (the project's own), and each once per run.
class HeaderSelection {
public:
  virtual ~HeaderSelection() = default;
  // `path` is the header's real path; `system`: found through a system include path.
  virtual bool wants(llvm::StringRef path, bool system) const = 0;
  // True for the first translation unit of the run to claim the function at `offset` of
  // `path` (thread-safe): only that one lowers and reports it.
  virtual bool claim(const std::string& path, unsigned offset) const = 0;
  // The path a header's findings are shown with.
  virtual std::string displayPath(const std::string& path) const = 0;
  // False when the translation unit is compiled only for a header it includes (a header named
  // on the command line): the main file's functions are then not lowered.
  virtual bool lowersMainFile() const { return true; }
};

// A header's functions lowered in this translation unit (the ones it claimed).
struct LoweredHeader {
  std::string realPath;
  std::shared_ptr<SourceText> source; // the bytes Clang read
  ir::ModuleIR module;
};

struct LoweredTranslationUnit {
  ir::ModuleIR module;
  std::vector<LoweredHeader> headers;
  std::vector<std::string> warnings; // functions that could not be analysed, and why
};

// Lowers every function, method, constructor, destructor and lambda whose definition is in the
// main file of `context`, or in a header `headers` selects (not template instantiations:
// templates are analysed once, as written). `mainFile` must hold the main file's bytes: every
// range is computed from it (a header's from the bytes Clang read), and events spelled in
// macros are placed at the macro's use. A function whose body holds one of `errors` (the
// compiler's error locations) is not lowered: Clang's recovery may have dropped statements of
// it, and rules that look for what is absent would report what is not there.
// `skipPrecompiled`: the declarations of the precompiled header the unit was parsed with are
// in no lowered file (gradlint built it from headers `headers` does not select), so they are
// not even loaded: loading them all to skip them would cost what the header saves.
LoweredTranslationUnit lowerTranslationUnit(clang::ASTContext& context,
                                            const SourceText& mainFile,
                                            const HeaderSelection* headers = nullptr,
                                            const std::vector<clang::SourceLocation>& errors =
                                                {},
                                            bool skipPrecompiled = false);

} // namespace gradlint::cpp
