// The C++ frontend for `gradlint check`: compiles a file with Clang (LibTooling, syntax only)
// using the flags of a compilation database (`-p BUILD_DIR`) or given after `--`, like
// clang-tidy, and lowers its functions to the Grad IR (lowering.h). No Clang header is needed
// to use it.
#pragma once

#include "checkers/cpp/nolint.h"
#include "checkers/ir/diagnostic.h"
#include "checkers/ir/grad_ir.h"
#include "checkers/ir/suppressions.h"
#include "checkers/python/source_text.h"

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gradlint::cpp {

struct CompileOptions {
  std::string buildPath;               // -p: a folder with compile_commands.json (or above it)
  std::vector<std::string> extraArgs;  // after `--`: the flags, or more flags for the database's
  bool extraArgsGiven = false;         // `--` was given (possibly with no flags)
  // Whose headers' function bodies are checked: a regular expression over the header's path
  // (like clang-tidy's -header-filter; "" for none). Unset: the project's headers, i.e. those
  // under the checked file's project folder (its nearest gradlint.toml, pyproject.toml,
  // setup.cfg, setup.py or .git; else the top of its CMakeLists.txt chain; else its folder) or
  // its compile command's folder, not on a system include path.
  std::optional<std::string> headerFilter;
  // The third-party headers that translation units start with (`#include <torch/torch.h>`)
  // are parsed once into a precompiled header and reused by the units with the same leading
  // includes and flags (precompiled_prefix.h). Kept in `precompiledHeaderFolder` across runs
  // (the cache folder's pch/); without one, for the run only, and only when it checks
  // `translationUnits` > 1.
  bool precompileHeaders = true;
  std::string precompiledHeaderFolder;
  size_t translationUnits = 0;
  bool traceCompiledHeaders = false; // a line on stderr for each one built or reused
};

// Where each file's compile command comes from, loaded once per run. Thread-safe.
class CompileCommands {
public:
  // Returns null and sets `error` when `-p` names a folder without a usable database.
  static std::shared_ptr<const CompileCommands> load(const CompileOptions& options,
                                                     std::string& error);
  ~CompileCommands();
  CompileCommands(const CompileCommands&) = delete;
  CompileCommands& operator=(const CompileCommands&) = delete;

  struct Impl;
  const Impl& impl() const { return *impl_; }

private:
  explicit CompileCommands(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// The functions of one project header, lowered through a translation unit that includes it.
struct CppHeaderResult {
  std::shared_ptr<SourceText> source;
  ir::ModuleIR module;
  Suppressions suppressions;
};

struct CppFileResult {
  ir::ModuleIR module;
  // Headers whose functions this translation unit lowered (each function once per run).
  std::vector<CppHeaderResult> headers;
  Suppressions suppressions;
  std::vector<Diagnostic> frontendDiagnostics; // GL001: the file does not compile
  // Not findings: functions not analysed, and why.
  std::vector<std::string> warnings;
  unsigned compilerErrors = 0;
  // One of them was fatal, or at no place in a file (flags Clang rejects: an unknown target or
  // CPU, language or option value): with no function lowered, nothing of the file was checked.
  bool compileStopped = false;
};

// Compiles `source` (its bytes, not the file on disk: stdin works too) and lowers it.
// `commands` may be null: the file is compiled with Clang's defaults. `ruleNames` are the rules
// a NOLINT comment can name (the rules layer above owns them: see program/cpp_module.h).
CppFileResult analyzeCppFile(const SourceText& source, const CompileCommands* commands,
                             const std::vector<RuleName>& ruleNames);

} // namespace gradlint::cpp
