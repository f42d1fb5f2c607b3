#include "checkers/cpp/frontend.h"

#include "checkers/cpp/lowering.h"
#include "checkers/cpp/nolint.h"
#include "checkers/cpp/precompiled_prefix.h"

#include <clang/AST/ASTConsumer.h>
#include <clang/AST/DeclCXX.h>
#include <clang/Basic/Diagnostic.h>
#include <clang/Basic/DiagnosticLex.h>
#include <clang/Basic/SourceManager.h>
#include <clang/Frontend/CompilerInstance.h>
#include <clang/Frontend/FrontendAction.h>
#include <clang/Tooling/ArgumentsAdjusters.h>
#include <clang/Tooling/CompilationDatabase.h>
#include <clang/Tooling/Tooling.h>
#include <llvm/ADT/SmallString.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/Path.h>
#include <llvm/Support/Regex.h>
#include <llvm/Support/VirtualFileSystem.h>

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <optional>
#include <mutex>
#include <unordered_map>
#include <unordered_set>

#ifndef GRADLINT_CLANG_RESOURCE_DIR
#define GRADLINT_CLANG_RESOURCE_DIR ""
#endif

namespace gradlint::cpp {
namespace {

std::string_view extensionOf(std::string_view path) {
  const size_t slash = path.find_last_of('/');
  const size_t dot = path.rfind('.');
  if (dot == std::string_view::npos || (slash != std::string_view::npos && dot < slash)) return "";
  return path.substr(dot);
}

bool isHeaderPath(std::string_view path) {
  const std::string_view ext = extensionOf(path);
  return ext == ".h" || ext == ".hh" || ext == ".hpp" || ext == ".hxx" || ext == ".cuh" ||
         ext == ".tpp" || ext == ".ipp" || ext == ".inl";
}

bool isCudaPath(std::string_view path) {
  const std::string_view ext = extensionOf(path);
  return ext == ".cu" || ext == ".cuh";
}

std::string absolutePath(const std::string& path) {
  llvm::SmallString<256> absolute(path);
  if (llvm::sys::fs::make_absolute(absolute)) return path;
  llvm::sys::path::remove_dots(absolute, /*remove_dot_dot=*/true);
  return std::string(absolute);
}

std::string currentDirectory() {
  llvm::SmallString<256> cwd;
  if (llvm::sys::fs::current_path(cwd)) return ".";
  return std::string(cwd);
}

// The folder of the project `file` (an absolute path) belongs to, whose headers are its code:
// the nearest folder above it with a project file or a repository (the markers the Python side
// uses for its project root); else the top of the CMakeLists.txt chain it sits in (a CMake
// project's subfolders each have one); else the file's own folder. Decided per file, not by the
// working folder: a run from `/` or `/tmp` with absolute paths sees the same headers.
std::string projectRootOf(const std::string& file) {
  static constexpr std::string_view kMarkers[] = {"gradlint.toml", "pyproject.toml", "setup.cfg",
                                                  "setup.py", ".git"};
  // Header paths are matched real (symbolic links resolved): so is the root.
  llvm::SmallString<256> real;
  if (llvm::sys::fs::real_path(file, real)) real = file;
  const std::string folder = llvm::sys::path::parent_path(real).str();
  llvm::SmallString<256> at(folder);
  std::string topCMakeFolder;
  bool cmakeChain = true;
  while (!at.empty()) {
    for (std::string_view marker : kMarkers) {
      llvm::SmallString<256> candidate(at);
      llvm::sys::path::append(candidate, marker);
      if (llvm::sys::fs::exists(candidate)) return std::string(at);
    }
    if (cmakeChain) {
      llvm::SmallString<256> cmakeLists(at);
      llvm::sys::path::append(cmakeLists, "CMakeLists.txt");
      if (llvm::sys::fs::exists(cmakeLists)) {
        topCMakeFolder = std::string(at);
      } else {
        cmakeChain = topCMakeFolder.empty(); // the chain starts at the nearest CMakeLists.txt
      }
    }
    const llvm::StringRef parent = llvm::sys::path::parent_path(at);
    if (parent == at) break;
    at = parent;
  }
  return topCMakeFolder.empty() ? folder : topCMakeFolder;
}

// A path as the user sees it: relative to the working folder when it is under it.
std::string displayPathOf(llvm::StringRef path) {
  static const std::string cwd = currentDirectory() + "/";
  if (path.starts_with(cwd)) return path.substr(cwd.size()).str();
  return path.str();
}

// One compile command, handed to ClangTool.
class SingleCommandDatabase : public clang::tooling::CompilationDatabase {
public:
  explicit SingleCommandDatabase(clang::tooling::CompileCommand command)
      : command_(std::move(command)) {}
  std::vector<clang::tooling::CompileCommand>
  getCompileCommands(llvm::StringRef) const override {
    return {command_};
  }
  std::vector<std::string> getAllFiles() const override { return {command_.Filename}; }

private:
  clang::tooling::CompileCommand command_;
};

// Counts the compiler's errors and keeps the first: its message, where it is, and the place in
// the main file it comes from (itself, or the #include that leads to the header it is in).
class ErrorCounter : public clang::DiagnosticConsumer {
public:
  // `mainPath`: the file reported (the main file, or the header a translation unit is compiled
  // for); `realPath`: its real path, to find it on the include stack.
  ErrorCounter(std::string mainPath, std::string displayPath, std::string realPath)
      : mainPath_(std::move(mainPath)), displayPath_(std::move(displayPath)),
        realPath_(std::move(realPath)) {}

  void HandleDiagnostic(clang::DiagnosticsEngine::Level level,
                        const clang::Diagnostic& info) override {
    DiagnosticConsumer::HandleDiagnostic(level, info);
    if (level < clang::DiagnosticsEngine::Error) return;
    ++errors_;
    if (level == clang::DiagnosticsEngine::Fatal || !info.getLocation().isValid()) {
      fatalOrUnplaced_ = true;
    }
    if (info.getLocation().isValid() && info.hasSourceManager()) {
      locations_.push_back(info.getSourceManager().getExpansionLoc(info.getLocation()));
    }
    if (!first_.empty()) return;
    llvm::SmallString<160> message;
    info.FormatDiagnostic(message);
    message_ = std::string(message);
    missingFile_ = info.getID() == clang::diag::err_pp_file_not_found;
    if (missingFile_ && info.getNumArgs() > 0 &&
        info.getArgKind(0) == clang::DiagnosticsEngine::ak_std_string) {
      missingName_ = info.getArgStdStr(0);
    }
    std::string where;
    if (info.getLocation().isValid() && info.hasSourceManager()) {
      const clang::SourceManager& sources = info.getSourceManager();
      const clang::SourceLocation location = sources.getExpansionLoc(info.getLocation());
      const clang::PresumedLoc presumed = sources.getPresumedLoc(location);
      if (presumed.isValid()) {
        std::string file = presumed.getFilename();
        file = file == mainPath_ ? displayPath_ : displayPathOf(file);
        where = fmt::format("{}:{}:{}: ", file, presumed.getLine(), presumed.getColumn());
      }
      // Up the include stack to the reported file.
      clang::SourceLocation inMain = location;
      for (int depth = 0; inMain.isValid() && !isReported(sources, inMain) && depth < 256;
           ++depth) {
        inMain = sources.getIncludeLoc(sources.getFileID(inMain));
      }
      if (inMain.isValid() && isReported(sources, inMain)) {
        mainOffset_ = sources.getFileOffset(inMain);
        inHeader_ = inMain != location;
      } else {
        inHeader_ = true; // in the file it is compiled through, outside the reported header
      }
    }
    first_ = where + message_;
  }

  unsigned errors() const { return errors_; }
  // A fatal error, or one at no place in a file: how a precompiled header that cannot be read
  // shows (and a fatal error in the file, which the plain parse will report again).
  bool fatalOrUnplaced() const { return fatalOrUnplaced_; }
  // Forgets what it counted: the translation unit is parsed again.
  void reset() {
    clear();
    errors_ = 0;
    fatalOrUnplaced_ = false;
    first_.clear();
    message_.clear();
    mainOffset_.reset();
    inHeader_ = false;
    missingFile_ = false;
    missingName_.clear();
    locations_.clear();
  }
  const std::string& first() const { return first_; }
  const std::string& message() const { return message_; }
  std::optional<unsigned> mainOffset() const { return mainOffset_; }
  bool inHeader() const { return inHeader_; }
  bool missingFile() const { return missingFile_; }
  // The header the first error did not find, as included (`omp.h`); "" for other errors.
  const std::string& missingName() const { return missingName_; }
  // Where each error is (expansion locations, in the order reported).
  const std::vector<clang::SourceLocation>& locations() const { return locations_; }

private:
  bool isReported(const clang::SourceManager& sources, clang::SourceLocation location) const {
    if (realPath_.empty()) return sources.isInMainFile(location);
    const clang::OptionalFileEntryRef entry =
        sources.getFileEntryRefForID(sources.getFileID(location));
    return entry && entry->getFileEntry().tryGetRealPathName() == realPath_;
  }

  std::string mainPath_;
  std::string displayPath_;
  std::string realPath_; // "" when the reported file is the main file
  unsigned errors_ = 0;
  bool fatalOrUnplaced_ = false;
  std::string first_;   // "file:line:col: message"
  std::string message_; // the message alone
  std::optional<unsigned> mainOffset_;
  bool inHeader_ = false;
  bool missingFile_ = false;
  std::string missingName_;
  std::vector<clang::SourceLocation> locations_;
};

// Where a file's compile flags came from, for the help of a compile error.
struct FlagsOrigin {
  bool fromDatabase = false; // compile_commands.json (else clang's defaults and `--`)
  std::string inferredFrom;  // the database has no entry for the file: the file whose flags
  std::string through;       // a header compiled through this translation unit
  bool headerAlone = false;  // a header compiled on its own (no translation unit includes it)
};

// GL001 for a file that does not compile: the first error, at its place in the file (or at the
// #include that leads to it), and how many followed.
Diagnostic compileErrorDiagnostic(const SourceText& source, const ErrorCounter& errors,
                                  const FlagsOrigin& flags) {
  Diagnostic diagnostic;
  diagnostic.code = "GL001";
  diagnostic.severity = Severity::Error;
  const unsigned more = errors.errors() - 1;
  diagnostic.message = fmt::format(
      "compile error: {}{}; gradlint analyses what Clang could recover, so findings in this "
      "file may be incomplete",
      errors.inHeader() ? errors.first() + " (in a file included here)" : errors.message(),
      more == 0 ? "" : fmt::format(" (and {} more error{})", more, more == 1 ? "" : "s"));
  std::string origin;
  if (flags.headerAlone) {
    origin = "no translation unit of a compilation database (`-p BUILD_DIR`) includes this "
             "header, so it was compiled alone (flags after `--`, e.g. `-include` of what it "
             "needs, apply to it): ";
  }
  if (!flags.through.empty()) {
    origin = fmt::format("compiled through `{}`, which includes it: ", flags.through);
  } else if (flags.fromDatabase && !flags.inferredFrom.empty()) {
    origin += fmt::format("this file has no entry in compile_commands.json, so it was compiled "
                         "with the flags of `{}`: ",
                         flags.inferredFrom);
  }
  if (errors.missingFile() && errors.missingName() == "omp.h") {
    // GCC ships OpenMP's header with the compiler; Clang finds it only where LLVM's OpenMP
    // runtime is installed, so a database written for GCC with -fopenmp misses it.
    diagnostic.help = origin + "`omp.h` is OpenMP's header: GCC ships it with the compiler, "
                               "Clang 19 finds it once LLVM's OpenMP headers are installed "
                               "(Debian: `apt install libomp-19-dev`)";
  } else if (errors.missingFile()) {
    diagnostic.help =
        origin +
        (flags.fromDatabase
             ? "the compile command from compile_commands.json does not find this header: "
               "rebuild the database (`cmake -DCMAKE_EXPORT_COMPILE_COMMANDS=ON`), or add the "
               "include folder after `--` (`-- -I...`)"
             : "gradlint needs the file's compile flags: pass `-p BUILD_DIR` (a folder with "
               "compile_commands.json, e.g. from `cmake -DCMAKE_EXPORT_COMPILE_COMMANDS=ON`) or "
               "give them after `--` (`gradlint check FILE -- -std=c++17 -I...`)");
  } else {
    diagnostic.help = origin + "fix the error (or the compile flags: `-p BUILD_DIR`, or flags "
                               "after `--`); functions Clang could not parse are not checked";
  }
  const auto size = static_cast<uint32_t>(source.bytes().size());
  uint32_t start = std::min<uint32_t>(errors.mainOffset().value_or(0), size);
  uint32_t end = start;
  while (end < size && source.bytes()[end] != '\n' && end - start < 200) ++end;
  diagnostic.range = source.range(start, end);
  return diagnostic;
}

class ProjectHeaders;

// A parse that reads a precompiled header of the unit's leading includes (precompiled_prefix.h).
struct PrecompiledParse {
  bool lowered = false; // else the header could not be used: the unit is parsed again without
};

class LowerConsumer : public clang::ASTConsumer {
public:
  LowerConsumer(const SourceText& source, LoweredTranslationUnit& out,
                const clang::SourceManager& sources, const ProjectHeaders& headers,
                const ErrorCounter& errors, PrecompiledParse* precompiled)
      : source_(source), out_(out), sources_(sources), headers_(headers), errors_(errors),
        precompiled_(precompiled) {}
  void HandleTranslationUnit(clang::ASTContext& context) override;
  // The main file's and the project headers' functions are lowered. The bodies of other
  // headers' functions are not parsed (<torch/torch.h> has thousands), nor those of header
  // functions another translation unit of the run already lowered; destructors always are:
  // they tell whether a class restores grad mode. Sema still parses the bodies it needs
  // (constexpr functions, deduced return types).
  bool shouldSkipFunctionBody(clang::Decl* decl) override;

private:
  const SourceText& source_;
  LoweredTranslationUnit& out_;
  const clang::SourceManager& sources_;
  const ProjectHeaders& headers_;
  const ErrorCounter& errors_;
  PrecompiledParse* precompiled_; // null: a plain parse
  std::unordered_map<unsigned, std::optional<std::string>> wanted_; // FileID -> real path
};

class LowerAction : public clang::ASTFrontendAction {
public:
  LowerAction(const SourceText& source, LoweredTranslationUnit& out,
              const ProjectHeaders& headers, const ErrorCounter& errors,
              PrecompiledParse* precompiled)
      : source_(source), out_(out), headers_(headers), errors_(errors),
        precompiled_(precompiled) {}
  std::unique_ptr<clang::ASTConsumer> CreateASTConsumer(clang::CompilerInstance& compiler,
                                                        llvm::StringRef) override {
    compiler.getFrontendOpts().SkipFunctionBodies = true; // asks shouldSkipFunctionBody
    // A missing header (OpenCV, MPI, Eigen not on the command line) is an error, not a fatal
    // one: after a fatal error Clang enters no further #include, <torch/torch.h> included
    // next would not be read, and no function of the file could be checked. Functions whose
    // bodies use what is missing are left out (lowerTranslationUnit); the others are checked.
    compiler.getDiagnostics().setSeverity(clang::diag::err_pp_file_not_found,
                                          clang::diag::Severity::Error, clang::SourceLocation());
    return std::make_unique<LowerConsumer>(source_, out_, compiler.getSourceManager(), headers_,
                                           errors_, precompiled_);
  }

private:
  const SourceText& source_;
  LoweredTranslationUnit& out_;
  const ProjectHeaders& headers_;
  const ErrorCounter& errors_;
  PrecompiledParse* precompiled_;
};

class LowerActionFactory : public clang::tooling::FrontendActionFactory {
public:
  LowerActionFactory(const SourceText& source, LoweredTranslationUnit& out,
                     const ProjectHeaders& headers, const ErrorCounter& errors,
                     PrecompiledParse* precompiled)
      : source_(source), out_(out), headers_(headers), errors_(errors),
        precompiled_(precompiled) {}
  std::unique_ptr<clang::FrontendAction> create() override {
    return std::make_unique<LowerAction>(source_, out_, headers_, errors_, precompiled_);
  }

private:
  const SourceText& source_;
  LoweredTranslationUnit& out_;
  const ProjectHeaders& headers_;
  const ErrorCounter& errors_;
  PrecompiledParse* precompiled_;
};

bool hasArgument(const clang::tooling::CommandLineArguments& args, std::string_view prefix) {
  return std::any_of(args.begin(), args.end(),
                     [&](const std::string& arg) { return arg.starts_with(prefix); });
}

// CUDA without a CUDA installation: the attribute macros and launch configuration that
// clang's wrapper headers would take from the CUDA headers. Host code is all gradlint reads.
constexpr std::string_view kCudaStubPath = "/__gradlint__/cuda_stub.h";
constexpr std::string_view kCudaStub = R"(#pragma once
#define __host__ __attribute__((host))
#define __device__ __attribute__((device))
#define __global__ __attribute__((global))
#define __shared__ __attribute__((shared))
#define __constant__ __attribute__((constant))
#define __managed__ __attribute__((managed))
#define __launch_bounds__(...) __attribute__((launch_bounds(__VA_ARGS__)))
#include <__clang_cuda_builtin_vars.h>
struct dim3 {
  unsigned x, y, z;
  __host__ __device__ dim3(unsigned vx = 1, unsigned vy = 1, unsigned vz = 1)
      : x(vx), y(vy), z(vz) {}
};
typedef struct CUstream_st* cudaStream_t;
extern "C" unsigned __cudaPushCallConfiguration(dim3 gridSize, dim3 blockSize,
                                                __SIZE_TYPE__ sharedSize = 0,
                                                cudaStream_t stream = 0);
)";

} // namespace

struct CompileCommands::Impl {
  std::unique_ptr<clang::tooling::CompilationDatabase> database; // -p, with interpolation
  std::optional<llvm::Regex> headerFilter;
  // Header functions some translation unit of the run has lowered: "real path:offset".
  mutable std::mutex claimsMutex;
  mutable std::unordered_set<std::string> claims;
  std::vector<std::string> extraArgs;
  bool extraArgsGiven = false;
  bool autodetect = false; // neither -p nor --: look for compile_commands.json above each file
  std::unique_ptr<PrecompiledHeaders> precompiled; // null: every unit parses all its headers
  mutable std::mutex mutex;
  mutable std::map<std::string, std::shared_ptr<clang::tooling::CompilationDatabase>> detected;

  // The database for `path`: -p's, or (neither -p nor `--`) one found above it. Holds `mutex`.
  const clang::tooling::CompilationDatabase* databaseFor(const std::string& path) const {
    if (database != nullptr || !autodetect) return database.get();
    const std::string folder = std::string(llvm::sys::path::parent_path(path));
    auto [it, inserted] = detected.try_emplace(folder);
    if (inserted) {
      std::string ignored;
      if (auto found =
              clang::tooling::CompilationDatabase::autoDetectFromDirectory(folder, ignored)) {
        it->second = clang::tooling::inferMissingCompileCommands(std::move(found));
      }
    }
    return it->second.get();
  }

  clang::tooling::CompileCommand commandFor(const std::string& path) const {
    std::vector<clang::tooling::CompileCommand> commands;
    {
      std::lock_guard<std::mutex> lock(mutex);
      if (const clang::tooling::CompilationDatabase* source = databaseFor(path)) {
        commands = source->getCompileCommands(path);
      }
    }
    if (!commands.empty()) return commands.front();
    // No database: clang's defaults plus the flags after `--`, as clang-tidy does.
    clang::tooling::CompileCommand command;
    command.Directory = currentDirectory();
    command.Filename = path;
    command.CommandLine.push_back("clang-tool");
    command.CommandLine.insert(command.CommandLine.end(), extraArgs.begin(), extraArgs.end());
    command.CommandLine.push_back(path);
    return command;
  }

  // A translation unit of the database that includes `header` (an absolute path), directly or
  // through headers of the same folder (tools.h including tools.tpp), found by reading the
  // `#include` lines of the database's files: the one named like the header first, then the
  // nearest by folder. None without a database.
  std::optional<std::string> includerOf(const std::string& header) const;

private:
  // The paths the `#include` lines of a file spell, read once per run. Holds `mutex`.
  const std::vector<std::string>& includesOf(const std::string& path) const;
  mutable std::unordered_map<std::string, std::vector<std::string>> includes_;
};

namespace {

// The run's header selection, seen from one translation unit (its compile command's folder).
class ProjectHeaders final : public HeaderSelection {
public:
  // `projectRoot`: the checked file's (projectRootOf); `commandDirectory`: its compile
  // command's folder when the command comes from a database, else empty.
  ProjectHeaders(const CompileCommands::Impl* run, const std::string& projectRoot,
                 const std::string& commandDirectory)
      : run_(run), roots_{projectRoot + "/"} {
    if (!commandDirectory.empty()) roots_.push_back(absolutePath(commandDirectory) + "/");
  }
  // Only `target` (a real path): a header named on the command line, compiled through a
  // translation unit that includes it. Its functions are all lowered, whatever the run claimed.
  explicit ProjectHeaders(std::string target) : run_(nullptr), target_(std::move(target)) {}

  bool lowersMainFile() const override { return target_.empty(); }
  bool wants(llvm::StringRef path, bool system) const override {
    if (!target_.empty()) return path == target_;
    if (run_ != nullptr && run_->headerFilter) return run_->headerFilter->match(path);
    if (system) return false; // LibTorch's, the standard library's: never lowered
    return std::any_of(roots_.begin(), roots_.end(), [&](const std::string& root) {
      return root.size() > 1 && path.starts_with(root);
    });
  }
  bool claimed(const std::string& path, unsigned offset) const {
    const std::string key = fmt::format("{}:{}", path, offset);
    if (run_ == nullptr) return local_.count(key) != 0;
    std::lock_guard<std::mutex> lock(run_->claimsMutex);
    return run_->claims.count(key) != 0;
  }
  bool claim(const std::string& path, unsigned offset) const override {
    std::string key = fmt::format("{}:{}", path, offset);
    if (run_ == nullptr) return local_.insert(std::move(key)).second;
    std::lock_guard<std::mutex> lock(run_->claimsMutex);
    return run_->claims.insert(std::move(key)).second;
  }
  std::string displayPath(const std::string& path) const override { return displayPathOf(path); }

private:
  const CompileCommands::Impl* run_;
  std::string target_;
  std::vector<std::string> roots_;
  mutable std::unordered_set<std::string> local_; // no run: one translation unit
};

void LowerConsumer::HandleTranslationUnit(clang::ASTContext& context) {
  // A precompiled header that could not be read (a header changed since it was built): nothing
  // is lowered or claimed, and the unit is parsed again without it.
  if (precompiled_ != nullptr && errors_.fatalOrUnplaced()) return;
  out_ = lowerTranslationUnit(context, source_, &headers_, errors_.locations(),
                              /*skipPrecompiled=*/precompiled_ != nullptr);
  if (precompiled_ != nullptr) precompiled_->lowered = true;
}

bool LowerConsumer::shouldSkipFunctionBody(clang::Decl* decl) {
  if (llvm::isa<clang::CXXDestructorDecl>(decl)) return false;
  const clang::SourceLocation location = sources_.getExpansionLoc(decl->getLocation());
  if (!location.isValid()) return false;
  // The main file's bodies are parsed even when only a header it includes is lowered: they
  // instantiate the header's templates, and a template whose CFG Clang cannot build as written
  // (a range-for over a dependent type) is read from an instantiation.
  if (sources_.isWrittenInMainFile(location)) return false;
  const clang::FileID file = sources_.getFileID(location);
  auto [it, inserted] = wanted_.try_emplace(file.getHashValue());
  if (inserted) {
    if (const clang::OptionalFileEntryRef entry = sources_.getFileEntryRefForID(file)) {
      llvm::StringRef real = entry->getFileEntry().tryGetRealPathName();
      if (real.empty()) real = entry->getName();
      if (headers_.wants(real, sources_.isInSystemHeader(location))) it->second = real.str();
    }
  }
  if (!it->second) return true;
  return headers_.claimed(*it->second, sources_.getFileOffset(location));
}

} // namespace

CompileCommands::CompileCommands(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
CompileCommands::~CompileCommands() = default;

std::shared_ptr<const CompileCommands> CompileCommands::load(const CompileOptions& options,
                                                            std::string& error) {
  auto impl = std::make_unique<Impl>();
  if (options.headerFilter) {
    llvm::Regex filter(*options.headerFilter);
    std::string why;
    if (!filter.isValid(why)) {
      error = fmt::format("header filter `{}` (--header-filter or `header-filter`) is not a "
                          "regular expression: {}",
                          *options.headerFilter, why);
      return nullptr;
    }
    impl->headerFilter = std::move(filter);
  }
  impl->extraArgs = options.extraArgs;
  impl->extraArgsGiven = options.extraArgsGiven;
  if (options.precompileHeaders &&
      (!options.precompiledHeaderFolder.empty() || options.translationUnits > 1)) {
    impl->precompiled = std::make_unique<PrecompiledHeaders>(options.precompiledHeaderFolder,
                                                             options.traceCompiledHeaders);
  }
  if (!options.buildPath.empty()) {
    if (!llvm::sys::fs::is_directory(options.buildPath)) {
      error = fmt::format("-p {}: no such folder", options.buildPath);
      return nullptr;
    }
    std::string why;
    auto database =
        clang::tooling::CompilationDatabase::autoDetectFromDirectory(options.buildPath, why);
    if (!database) {
      error = fmt::format("-p {}: no compile_commands.json there or in a folder above it",
                          options.buildPath);
      return nullptr;
    }
    impl->database = clang::tooling::inferMissingCompileCommands(std::move(database));
  } else if (!options.extraArgsGiven) {
    impl->autodetect = true;
  }
  return std::shared_ptr<const CompileCommands>(new CompileCommands(std::move(impl)));
}

const std::vector<std::string>& CompileCommands::Impl::includesOf(const std::string& path) const {
  auto [it, inserted] = includes_.try_emplace(path);
  if (!inserted) return it->second;
  auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/true);
  if (!buffer) return it->second;
  llvm::StringRef text = (*buffer)->getBuffer();
  while (!text.empty()) {
    auto [line, rest] = text.split('\n');
    text = rest;
    line = line.ltrim();
    if (!line.consume_front("#")) continue;
    line = line.ltrim();
    if (!line.consume_front("include")) continue;
    line = line.ltrim();
    if (line.empty() || (line.front() != '"' && line.front() != '<')) continue;
    const char close = line.front() == '"' ? '"' : '>';
    const size_t end = line.find(close, 1);
    if (end == llvm::StringRef::npos) continue;
    llvm::StringRef spelled = line.slice(1, end);
    while (spelled.consume_front("./")) {
    }
    if (!spelled.empty()) it->second.push_back(spelled.str());
  }
  return it->second;
}

std::optional<std::string> CompileCommands::Impl::includerOf(const std::string& header) const {
  std::lock_guard<std::mutex> lock(mutex);
  const clang::tooling::CompilationDatabase* source = databaseFor(header);
  if (source == nullptr) return std::nullopt;
  const std::vector<std::string> files = source->getAllFiles();
  const auto includesAny = [&](const std::string& file, const std::vector<std::string>& targets) {
    for (const std::string& spelled : includesOf(file)) {
      for (const std::string& target : targets) {
        if (llvm::StringRef(target).ends_with("/" + spelled)) return true;
      }
    }
    return false;
  };
  // Ranks the translation units that include a target: foo.cpp for foo.h, then the one whose
  // folder shares the longest prefix with the header's, then the database's order.
  const llvm::StringRef stem = llvm::sys::path::stem(header);
  const auto score = [&](const std::string& file) {
    size_t common = 0;
    while (common < file.size() && common < header.size() && file[common] == header[common]) {
      ++common;
    }
    return std::make_pair(llvm::sys::path::stem(file) == stem, common);
  };
  std::vector<std::string> targets{header};
  std::unordered_set<std::string> seen{header};
  for (int depth = 0; depth < 4 && !targets.empty(); ++depth) {
    std::optional<std::string> best;
    for (const std::string& file : files) {
      if (isHeaderPath(file) || !includesAny(file, targets)) continue;
      if (!best || score(file) > score(*best)) best = file;
    }
    if (best) return best;
    // None: the headers of the targets' folders that include one (tools.h for tools.tpp).
    std::vector<std::string> next;
    std::unordered_set<std::string> folders;
    for (const std::string& target : targets) {
      folders.insert(std::string(llvm::sys::path::parent_path(target)));
    }
    for (const std::string& folder : folders) {
      std::error_code ec;
      for (llvm::sys::fs::directory_iterator entry(folder, ec), end; entry != end && !ec;
           entry.increment(ec)) {
        const std::string& candidate = entry->path();
        if (!isHeaderPath(candidate) || seen.count(candidate) != 0) continue;
        if (includesAny(candidate, targets)) {
          seen.insert(candidate);
          next.push_back(candidate);
        }
      }
    }
    targets = std::move(next);
  }
  return std::nullopt;
}

namespace {

// What one compilation of a translation unit needs.
struct Compilation {
  const SourceText& mainSource; // the bytes lowered for the main file (or, for a header, none)
  std::string mainPath;         // absolute
  clang::tooling::CompileCommand command;
  bool fromDatabase = false;
  // Files whose bytes come from gradlint, not from the disk (stdin, an editor's buffer).
  std::vector<std::pair<std::string, std::string_view>> mapped;
};

// What gradlint changes in every compile command, after ClangTool's own adjusters (output and
// dependency files stripped, -fsyntax-only).
clang::tooling::ArgumentsAdjuster commandAdjuster(const Compilation& compilation,
                                                  const CompileCommands* commands) {
  using clang::tooling::ArgumentInsertPosition;
  using clang::tooling::getInsertArgumentAdjuster;
  const std::string& path = compilation.mainPath;
  const bool header = isHeaderPath(path);
  const bool cuda = isCudaPath(path);
  clang::tooling::ArgumentsAdjuster ours =
      [header, cuda](const clang::tooling::CommandLineArguments& args, llvm::StringRef) {
        clang::tooling::CommandLineArguments out;
        out.push_back(args.empty() ? std::string("clang-tool") : args.front());
        std::string_view resources = GRADLINT_CLANG_RESOURCE_DIR;
        if (!resources.empty() && !hasArgument(args, "-resource-dir")) {
          out.push_back("-resource-dir=" + std::string(resources));
        }
        // A header on its own is C++, not C; CUDA is read as host code, without a CUDA install.
        if (header && !hasArgument(args, "-x")) {
          out.push_back(cuda ? "-xcuda" : "-xc++-header");
        }
        if (cuda && !hasArgument(args, "--cuda-path")) {
          out.insert(out.end(), {"--cuda-host-only", "-nocudainc", "-nocudalib", "-include",
                                 std::string(kCudaStubPath)});
        }
        // Warnings are not shown and errors are counted (ErrorCounter): no "N errors
        // generated" line on stderr either.
        out.insert(out.end(), {"-w", "-fno-caret-diagnostics"});
        out.insert(out.end(), args.begin() + (args.empty() ? 0 : 1), args.end());
        return out;
      };
  if (compilation.fromDatabase && commands->impl().extraArgsGiven) {
    return clang::tooling::combineAdjusters(
        getInsertArgumentAdjuster(commands->impl().extraArgs, ArgumentInsertPosition::END),
        ours);
  }
  return ours;
}

// A unit's parse with the precompiled header of its leading includes.
struct PrecompiledPlan {
  std::shared_ptr<const PrecompiledHeader> header;
  size_t prefixEnd = 0; // the bytes of the main file it stands for
};

bool isCppSourcePath(std::string_view path) {
  const std::string_view ext = extensionOf(path);
  return ext == ".cpp" || ext == ".cc" || ext == ".cxx" || ext == ".c++" || ext == ".C" ||
         ext == ".cp" || ext == ".CPP";
}

// The precompiled header a unit can start from: its leading `#include <...>` lines that reach
// headers outside the project, under its flags. None when in doubt: headers (checked alone or
// through an includer), CUDA, editor buffers of other files, flags that add code before the
// file or change its language, a first include of the project's own.
std::optional<PrecompiledPlan> precompiledPlanFor(const Compilation& compilation,
                                                  const CompileCommands* commands,
                                                  const ProjectHeaders& headers,
                                                  const clang::tooling::ArgumentsAdjuster& adjust) {
  if (commands == nullptr || !commands->impl().precompiled) return std::nullopt;
  const std::string& path = compilation.mainPath;
  if (!isCppSourcePath(path) || compilation.mapped.size() != 1 ||
      compilation.mapped.front().first != path) {
    return std::nullopt;
  }
  const std::vector<PrefixInclude> prefix = scanIncludePrefix(compilation.mainSource.bytes());
  if (prefix.empty()) return std::nullopt;
  const clang::tooling::CompileCommand& command = compilation.command;
  // The arguments as ClangTool hands them to the compiler.
  clang::tooling::CommandLineArguments args = command.CommandLine;
  for (const clang::tooling::ArgumentsAdjuster& adjuster :
       {clang::tooling::getClangStripOutputAdjuster(),
        clang::tooling::getClangSyntaxOnlyAdjuster(),
        clang::tooling::getClangStripDependencyFileAdjuster(), adjust}) {
    args = adjuster(args, command.Filename);
  }
  PrefixRequest request;
  request.directory = command.Directory;
  size_t files = 0;
  for (size_t i = 0; i < args.size(); ++i) {
    const llvm::StringRef arg = args[i];
    const bool cpp = arg == "-xc++" || (arg == "-x" && i + 1 < args.size() && args[i + 1] == "c++");
    if (arg.starts_with("-include") || arg.starts_with("--include") ||
        arg.starts_with("-imacros") || (arg.starts_with("-x") && !cpp) || arg == "-Xclang" ||
        arg.starts_with("-fmodule") || arg == "--driver-mode=cl") {
      return std::nullopt;
    }
    if (arg == "-x") { // -x c++
      request.arguments.insert(request.arguments.end(), {args[i], args[i + 1]});
      ++i;
      continue;
    }
    if (i > 0 && !arg.starts_with("-") && absolutePath(llvm::sys::path::is_absolute(arg)
                                                           ? arg.str()
                                                           : command.Directory + "/" + arg.str()) ==
                                              path) {
      ++files;
      continue;
    }
    request.arguments.push_back(args[i]);
  }
  if (files != 1) return std::nullopt;
  size_t count = 0;
  for (const PrefixInclude& include : prefix) {
    const auto found = findAngledInclude(include.spelled, request.arguments, command.Directory);
    if (found && headers.wants(found->first, found->second)) break;
    request.includes.push_back(include.spelled);
    ++count;
  }
  if (count == 0) return std::nullopt;
  PrecompiledPlan plan;
  plan.header = commands->impl().precompiled->get(request);
  if (!plan.header) return std::nullopt;
  // Built by another unit of the same flags, but this one's project may hold one of them.
  for (const PrecompiledFile& held : plan.header->headers) {
    if (headers.wants(held.path, held.system)) return std::nullopt;
  }
  plan.prefixEnd = prefix[count - 1].end;
  return plan;
}

// One parse of the translation unit: with `plan`, its leading includes come from the
// precompiled header, and whether it could be used is set in `precompiled`.
void runTool(const Compilation& compilation, const clang::tooling::ArgumentsAdjuster& adjust,
             const ProjectHeaders& headers, ErrorCounter& errors, LoweredTranslationUnit& lowered,
             const PrecompiledPlan* plan, PrecompiledParse* precompiled) {
  const std::string& path = compilation.mainPath;
  SingleCommandDatabase database(compilation.command);
  clang::tooling::ClangTool tool(database, {path},
                                 std::make_shared<clang::PCHContainerOperations>(),
                                 llvm::vfs::createPhysicalFileSystem());
  // With a precompiled header the main file's include lines it holds are blanked (spaces, the
  // line breaks kept: every offset, line and column stays): the header already entered them.
  std::string blanked;
  if (plan != nullptr) {
    blanked = compilation.mainSource.bytes();
    for (size_t i = 0; i < plan->prefixEnd && i < blanked.size(); ++i) {
      if (blanked[i] != '\n') blanked[i] = ' ';
    }
  }
  for (const auto& [file, bytes] : compilation.mapped) {
    tool.mapVirtualFile(file, plan != nullptr && file == path ? std::string_view(blanked) : bytes);
  }
  if (isCudaPath(path)) tool.mapVirtualFile(kCudaStubPath, kCudaStub);
  tool.setPrintErrorMessage(false);
  tool.appendArgumentsAdjuster(adjust);
  if (plan != nullptr) {
    tool.appendArgumentsAdjuster(clang::tooling::getInsertArgumentAdjuster(
        {"-include-pch", plan->header->path}, clang::tooling::ArgumentInsertPosition::END));
  }
  tool.setDiagnosticConsumer(&errors);
  lowered.module.language = ir::Language::Cpp;
  lowered.module.path = compilation.mainSource.path();
  LowerActionFactory factory(compilation.mainSource, lowered, headers, errors, precompiled);
  tool.run(&factory);
}

// Compiles with Clang (syntax only) and lowers what `headers` selects into `lowered`.
void compileAndLower(const Compilation& compilation, const CompileCommands* commands,
                     const ProjectHeaders& headers, ErrorCounter& errors,
                     LoweredTranslationUnit& lowered) {
  const clang::tooling::ArgumentsAdjuster adjust = commandAdjuster(compilation, commands);
  if (const std::optional<PrecompiledPlan> plan =
          precompiledPlanFor(compilation, commands, headers, adjust)) {
    PrecompiledParse precompiled;
    runTool(compilation, adjust, headers, errors, lowered, &*plan, &precompiled);
    if (precompiled.lowered) return;
    errors.reset();
    lowered = LoweredTranslationUnit();
  }
  runTool(compilation, adjust, headers, errors, lowered, nullptr, nullptr);
}

std::string realPathOf(const std::string& path) {
  llvm::SmallString<256> real;
  if (llvm::sys::fs::real_path(path, real)) return path;
  return std::string(real);
}

// A header named on the command line, compiled through `includer`, a translation unit of the
// compilation database that includes it: only the header's functions are lowered. Null when
// that translation unit does not reach the header after all (an #if around the #include).
std::optional<CppFileResult> analyzeHeaderThrough(const SourceText& source,
                                                  const std::string& path,
                                                  const std::string& includer,
                                                  const CompileCommands& commands,
                                                  const std::vector<RuleName>& ruleNames) {
  const std::string real = realPathOf(path);
  const SourceText includerSource(displayPathOf(includer), "");
  Compilation compilation{includerSource, includer, commands.impl().commandFor(includer), true,
                          {{path, source.bytes()}}};
  ErrorCounter errors(path, source.path(), real);
  LoweredTranslationUnit lowered;
  const ProjectHeaders headers(real);
  compileAndLower(compilation, &commands, headers, errors, lowered);
  auto header = std::find_if(lowered.headers.begin(), lowered.headers.end(),
                             [&](const LoweredHeader& h) { return h.realPath == real; });
  if (header == lowered.headers.end() && errors.errors() == 0) return std::nullopt;
  CppFileResult result;
  result.module.language = ir::Language::Cpp;
  if (header != lowered.headers.end()) result.module = std::move(header->module);
  result.module.path = source.path();
  collectNolint(source.bytes(), ruleNames, result.suppressions);
  result.compilerErrors = errors.errors();
  result.compileStopped = errors.fatalOrUnplaced();
  if (errors.errors() > 0) {
    FlagsOrigin flags{true, "", displayPathOf(includer)};
    result.frontendDiagnostics.push_back(compileErrorDiagnostic(source, errors, flags));
  }
  result.warnings = std::move(lowered.warnings);
  return result;
}

} // namespace

CppFileResult analyzeCppFile(const SourceText& source, const CompileCommands* commands,
                             const std::vector<RuleName>& ruleNames) {
  const std::string path = absolutePath(source.path());
  // A header named on the command line is checked as its users compile it, when the database
  // has one; else alone, with the flags of a similar file or those after `--`.
  if (commands != nullptr && isHeaderPath(path)) {
    if (const std::optional<std::string> includer = commands->impl().includerOf(path)) {
      if (auto result = analyzeHeaderThrough(source, path, *includer, *commands, ruleNames)) {
        return std::move(*result);
      }
    }
  }
  CppFileResult result;
  result.module.language = ir::Language::Cpp;
  result.module.path = source.path();
  collectNolint(source.bytes(), ruleNames, result.suppressions);

  Compilation compilation{source, path, {}, false, {{path, source.bytes()}}};
  if (commands != nullptr) {
    compilation.command = commands->impl().commandFor(path);
  } else {
    compilation.command.Directory = currentDirectory();
    compilation.command.Filename = path;
    compilation.command.CommandLine = {"clang-tool", path};
  }
  const clang::tooling::CompileCommand& command = compilation.command;
  compilation.fromDatabase = commands != nullptr && !command.CommandLine.empty() &&
                             command.CommandLine.front() != "clang-tool";
  ErrorCounter errors(path, source.path(), "");
  LoweredTranslationUnit lowered;
  const ProjectHeaders headers(commands != nullptr ? &commands->impl() : nullptr,
                               projectRootOf(path),
                               compilation.fromDatabase ? command.Directory : "");
  compileAndLower(compilation, commands, headers, errors, lowered);

  result.module = std::move(lowered.module);
  result.module.path = source.path();
  result.compilerErrors = errors.errors();
  result.compileStopped = errors.fatalOrUnplaced();
  if (errors.errors() > 0) {
    FlagsOrigin flags{compilation.fromDatabase, "", "", isHeaderPath(path)};
    // "inferred from src/other.cpp" (clang's interpolation): the file has no entry of its own.
    llvm::StringRef heuristic = command.Heuristic;
    if (compilation.fromDatabase && heuristic.consume_front("inferred from ")) {
      flags.inferredFrom = displayPathOf(absolutePath(
          llvm::sys::path::is_absolute(heuristic)
              ? heuristic.str()
              : (command.Directory + "/" + heuristic.str())));
    }
    result.frontendDiagnostics.push_back(compileErrorDiagnostic(source, errors, flags));
  }
  for (LoweredHeader& included : lowered.headers) {
    CppHeaderResult out;
    collectNolint(included.source->bytes(), ruleNames, out.suppressions);
    out.module = std::move(included.module);
    out.source = std::move(included.source);
    result.headers.push_back(std::move(out));
  }
  for (std::string& warning : lowered.warnings) result.warnings.push_back(std::move(warning));
  return result;
}

} // namespace gradlint::cpp
