// The boundary between the `gradlint` executable and its C++ checker. The checker (LibTooling,
// frontend.h) is built as a module, libgradlint-cpp.so, that `gradlint` opens with dlopen only
// when a run has C++ files (program/cpp_module.cpp): a Python run never maps libLLVM or
// libclang-cpp (~100 MB of shared libraries, most of a small run's start-up). The module
// exports one C symbol, gradlint_cpp_checker_module, which returns an implementation of
// CheckerModule; everything else in it is local. Types cross the boundary by value (frontend.h
// and the Grad IR), so the executable and the module must come from the same build: the caller
// passes kCheckerModuleAbi and gets null back from a module built differently.
#pragma once

#include "checkers/cpp/frontend.h"

#include <memory>
#include <string>

namespace gradlint::cpp {

class CheckerModule {
public:
  virtual ~CheckerModule() = default;
  // CompileCommands::load (frontend.h).
  virtual std::shared_ptr<const CompileCommands> loadCompileCommands(const CompileOptions& options,
                                                                     std::string& error) const = 0;
  // analyzeCppFile (frontend.h).
  virtual CppFileResult analyzeFile(const SourceText& source, const CompileCommands* commands,
                                    const std::vector<RuleName>& ruleNames) const = 0;
};

#ifndef GRADLINT_VERSION
#define GRADLINT_VERSION "0.0.0"
#endif
// The version and the compiler: what fixes the layout of the types passed, short of a build ID.
inline constexpr const char* kCheckerModuleAbi = "gradlint " GRADLINT_VERSION " " __VERSION__;

} // namespace gradlint::cpp

// The module's entry point: its CheckerModule (alive until the process ends), or null when `abi`
// is not the module's own kCheckerModuleAbi.
extern "C" const gradlint::cpp::CheckerModule* gradlint_cpp_checker_module(const char* abi);
