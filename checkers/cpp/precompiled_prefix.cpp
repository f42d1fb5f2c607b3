#include "checkers/cpp/precompiled_prefix.h"

#include <clang/AST/DeclCXX.h>
#include <clang/Basic/Diagnostic.h>
#include <clang/Basic/SourceManager.h>
#include <clang/Basic/Version.h>
#include <clang/Frontend/CompilerInstance.h>
#include <clang/Frontend/FrontendActions.h>
#include <clang/Frontend/MultiplexConsumer.h>
#include <clang/Tooling/CompilationDatabase.h>
#include <clang/Tooling/Tooling.h>
#include <llvm/ADT/SmallString.h>
#include <llvm/ADT/StringExtras.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/Path.h>
#include <llvm/Support/SHA256.h>
#include <llvm/Support/VirtualFileSystem.h>
#include <llvm/Support/raw_ostream.h>

#include <fmt/format.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <iostream>
#include <set>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace gradlint::cpp {
namespace {

constexpr std::string_view kManifestFormat = "gradlint-pch 1";

bool isBlank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v'; }

// The position after the blanks and comments at `at`, or npos for a comment left open.
size_t skipBlanksAndComments(std::string_view text, size_t at, bool acrossLines) {
  while (at < text.size()) {
    const char c = text[at];
    if (isBlank(c) || (acrossLines && c == '\n')) {
      ++at;
    } else if (text.substr(at, 2) == "//") {
      const size_t newline = text.find('\n', at);
      // A comment continued by a backslash runs on: not worth reading.
      const std::string_view line =
          text.substr(at, newline == std::string_view::npos ? text.npos : newline - at);
      if (!line.empty() && line.find_last_not_of(" \t\r") != std::string_view::npos &&
          line[line.find_last_not_of(" \t\r")] == '\\') {
        return std::string_view::npos;
      }
      at = newline == std::string_view::npos ? text.size() : newline;
    } else if (text.substr(at, 2) == "/*") {
      const size_t close = text.find("*/", at + 2);
      if (close == std::string_view::npos) return std::string_view::npos;
      if (!acrossLines && text.substr(at, close - at).find('\n') != std::string_view::npos) {
        return std::string_view::npos;
      }
      at = close + 2;
    } else {
      break;
    }
  }
  return at;
}

std::string absoluteIn(const std::string& directory, llvm::StringRef path) {
  llvm::SmallString<256> absolute(path);
  if (!llvm::sys::path::is_absolute(absolute)) {
    absolute = directory;
    llvm::sys::path::append(absolute, path);
  }
  llvm::sys::path::remove_dots(absolute, /*remove_dot_dot=*/true);
  return std::string(absolute);
}

std::string hexDigest(llvm::StringRef text) {
  llvm::SHA256 hash;
  hash.update(text);
  return llvm::toHex(hash.final(), /*LowerCase=*/true).substr(0, 32);
}

// What decides a precompiled header's contents, short of the headers' own bytes (those are
// checked by their stats): the compiler, the folder relative paths start from (empty when no
// argument names one), the flags, the include lines, and the variables that add include
// folders.
std::string keyOf(const PrefixRequest& request, const std::string& directory) {
  std::string key = fmt::format("{}\n{}\n", clang::getClangFullVersion(), directory);
  for (const std::string& argument : request.arguments) key += "arg " + argument + "\n";
  for (const std::string& include : request.includes) key += "include <" + include + ">\n";
  for (const char* variable : {"CPATH", "CPLUS_INCLUDE_PATH", "C_INCLUDE_PATH"}) {
    const char* value = std::getenv(variable);
    key += fmt::format("{}={}\n", variable, value == nullptr ? "" : value);
  }
  return key;
}

// A unit's -I and -iquote folders (absolute, in order) and its other arguments. The folders
// are the project's own: a header built without them serves every unit whose folders hide
// none of its files, wherever the unit's build folder is.
struct ProjectFolders {
  std::vector<std::string> folders;
  std::vector<std::string> rest;
};

ProjectFolders splitProjectFolders(const std::vector<std::string>& arguments,
                                   const std::string& directory) {
  ProjectFolders split;
  for (size_t i = 0; i < arguments.size(); ++i) {
    const llvm::StringRef argument = arguments[i];
    llvm::StringRef folder;
    bool matched = false;
    for (llvm::StringRef flag : {"--include-directory=", "-iquote", "-I"}) {
      if (!argument.starts_with(flag) || (flag == "-I" && argument == "-I-")) continue;
      matched = true;
      folder = argument.drop_front(flag.size());
      if (folder.empty() && !flag.ends_with("=") && i + 1 < arguments.size()) {
        folder = arguments[++i];
      }
      break;
    }
    if (matched) {
      if (!folder.empty()) split.folders.push_back(absoluteIn(directory, folder));
    } else {
      split.rest.push_back(arguments[i]);
    }
  }
  return split;
}

// Whether an argument (the compiler's name aside) may name a path relative to the working
// folder: then the folder is part of what a header is built from. Values of the options that
// name no path are not paths; any other value or input not absolute may be one.
bool namesRelativePath(const std::vector<std::string>& arguments) {
  static constexpr std::string_view kValuesNotPaths[] = {"-x", "-target", "--target", "-arch",
                                                         "-D", "-U", "-std"};
  static constexpr std::string_view kJoinedPaths[] = {"-isystem", "-idirafter", "-isysroot",
                                                      "--sysroot=", "-iprefix", "-F",
                                                      "-resource-dir="};
  for (size_t i = 1; i < arguments.size(); ++i) {
    const llvm::StringRef argument = arguments[i];
    if (!argument.starts_with("-")) {
      const llvm::StringRef option = arguments[i - 1];
      const bool notPath = std::find(std::begin(kValuesNotPaths), std::end(kValuesNotPaths),
                                     std::string_view(option)) != std::end(kValuesNotPaths);
      if (!notPath && !llvm::sys::path::is_absolute(argument)) return true;
      continue;
    }
    for (std::string_view flag : kJoinedPaths) {
      const llvm::StringRef value = argument.drop_front(
          argument.starts_with(llvm::StringRef(flag)) ? flag.size() : argument.size());
      if (!value.empty() && !llvm::sys::path::is_absolute(value)) return true;
    }
  }
  return false;
}

// Whether `folder` holds another file at the end of the path of one the header holds
// (`c10/util/Exception.h` of .../include/c10/util/Exception.h): an include the header resolved
// would find that one first, as -I folders come before -isystem ones. Only the folder's own
// entries are listed; a path is looked at when its first part is one of them.
bool hidesAHeldHeader(const std::string& folder, const PrecompiledHeader& header) {
  std::set<std::string, std::less<>> entries;
  std::error_code ec;
  for (llvm::sys::fs::directory_iterator it(folder, ec), end; it != end && !ec;
       it.increment(ec)) {
    entries.insert(llvm::sys::path::filename(it->path()).str());
  }
  if (entries.empty()) return false;
  for (const PrecompiledFile& held : header.headers) {
    const llvm::StringRef path = held.path;
    for (size_t slash = path.rfind('/'); slash != llvm::StringRef::npos && slash > 0;
         slash = path.rfind('/', slash - 1)) {
      const llvm::StringRef tail = path.drop_front(slash + 1);
      if (!entries.count(std::string_view(tail.split('/').first))) continue;
      const std::string candidate = folder + "/" + tail.str();
      if (!llvm::sys::fs::exists(candidate)) continue;
      llvm::SmallString<256> real;
      if (llvm::sys::fs::real_path(candidate, real) || real != path) return true;
    }
  }
  return false;
}

struct FileStat {
  uint64_t size = 0;
  int64_t mtimeNs = 0;
};

std::optional<FileStat> statOf(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return std::nullopt;
  return FileStat{static_cast<uint64_t>(st.st_size),
                  int64_t{st.st_mtim.tv_sec} * 1'000'000'000 + st.st_mtim.tv_nsec};
}

// A read of the entry's files counts as a use for the cache folder's bound (markCacheEntryUsed
// in program/cache_folder.h): the access time only, as the modification time is validated.
void markUsed(const std::string& path) {
  const timespec times[2] = {{0, UTIME_NOW}, {0, UTIME_OMIT}};
  ::utimensat(AT_FDCWD, path.c_str(), times, 0);
}

// Writes `text` to `path` through a temporary file of the same folder and a rename, so that a
// reader (another run) never sees half of it. The temporary name is one the cache folder's trim
// recognises (".NAME.PID.N.tmp").
bool writeAtomically(const std::string& path, std::string_view text) {
  static std::atomic<unsigned> counter{0};
  const std::string temporary =
      (llvm::sys::path::parent_path(path) + "/." + llvm::sys::path::filename(path) + "." +
       std::to_string(::getpid()) + "." + std::to_string(counter++) + ".tmp")
          .str();
  {
    std::error_code ec;
    llvm::raw_fd_ostream out(temporary, ec);
    if (ec) return false;
    out << text;
    out.close();
    if (out.has_error()) {
      out.clear_error();
      llvm::sys::fs::remove(temporary);
      return false;
    }
  }
  if (llvm::sys::fs::rename(temporary, path)) {
    llvm::sys::fs::remove(temporary);
    return false;
  }
  return true;
}

// The units' policy for headers outside the project (frontend.cpp, LowerConsumer): function
// bodies are skipped, destructors' excepted, as they tell whether a class restores grad mode.
// The header then holds the declarations a unit's own parse of the same lines would make.
class BodySkippingConsumer : public clang::MultiplexConsumer {
public:
  using MultiplexConsumer::MultiplexConsumer;
  bool shouldSkipFunctionBody(clang::Decl* decl) override {
    return !llvm::isa<clang::CXXDestructorDecl>(decl);
  }
};

class BuildAction : public clang::GeneratePCHAction {
public:
  BuildAction(std::string output, std::vector<PrecompiledFile>& files)
      : output_(std::move(output)), files_(files) {}

protected:
  std::unique_ptr<clang::ASTConsumer> CreateASTConsumer(clang::CompilerInstance& compiler,
                                                        llvm::StringRef file) override {
    compiler.getFrontendOpts().OutputFile = output_;
    compiler.getFrontendOpts().SkipFunctionBodies = true; // asks shouldSkipFunctionBody
    std::unique_ptr<clang::ASTConsumer> writer =
        GeneratePCHAction::CreateASTConsumer(compiler, file);
    if (!writer) return nullptr;
    std::vector<std::unique_ptr<clang::ASTConsumer>> consumers;
    consumers.push_back(std::move(writer));
    return std::make_unique<BodySkippingConsumer>(std::move(consumers));
  }

  void EndSourceFileAction() override {
    // Every file the build read: what the header holds, and what its validity depends on.
    const clang::SourceManager& sources = getCompilerInstance().getSourceManager();
    std::set<std::string> seen;
    for (unsigned i = 0, n = sources.local_sloc_entry_size(); i < n; ++i) {
      const clang::SrcMgr::SLocEntry& entry = sources.getLocalSLocEntry(i);
      if (!entry.isFile()) continue;
      const clang::SrcMgr::FileInfo& info = entry.getFile();
      const clang::OptionalFileEntryRef file = info.getContentCache().OrigEntry;
      if (!file) continue; // the predefines
      llvm::StringRef real = file->getFileEntry().tryGetRealPathName();
      const std::string path = (real.empty() ? file->getName() : real).str();
      if (!seen.insert(path).second) continue;
      files_.push_back({path, clang::SrcMgr::isSystem(info.getFileCharacteristic())});
    }
    GeneratePCHAction::EndSourceFileAction();
  }

private:
  std::string output_;
  std::vector<PrecompiledFile>& files_;
};

class BuildActionFactory : public clang::tooling::FrontendActionFactory {
public:
  BuildActionFactory(std::string output, std::vector<PrecompiledFile>& files)
      : output_(std::move(output)), files_(files) {}
  std::unique_ptr<clang::FrontendAction> create() override {
    return std::make_unique<BuildAction>(output_, files_);
  }

private:
  std::string output_;
  std::vector<PrecompiledFile>& files_;
};

class SingleCommand : public clang::tooling::CompilationDatabase {
public:
  explicit SingleCommand(clang::tooling::CompileCommand command) : command_(std::move(command)) {}
  std::vector<clang::tooling::CompileCommand> getCompileCommands(llvm::StringRef) const override {
    return {command_};
  }
  std::vector<std::string> getAllFiles() const override { return {command_.Filename}; }

private:
  clang::tooling::CompileCommand command_;
};

} // namespace

std::vector<PrefixInclude> scanIncludePrefix(std::string_view source) {
  std::vector<PrefixInclude> includes;
  size_t at = 0;
  while (true) {
    at = skipBlanksAndComments(source, at, /*acrossLines=*/true);
    if (at == std::string_view::npos || at >= source.size() || source[at] != '#') break;
    size_t cursor = skipBlanksAndComments(source, at + 1, false);
    if (cursor == std::string_view::npos || source.substr(cursor, 7) != "include") break;
    cursor = skipBlanksAndComments(source, cursor + 7, false);
    if (cursor == std::string_view::npos || cursor >= source.size() || source[cursor] != '<') {
      break;
    }
    const size_t close = source.find_first_of(">\n", cursor + 1);
    if (close == std::string_view::npos || source[close] != '>') break;
    const std::string_view spelled = source.substr(cursor + 1, close - cursor - 1);
    if (spelled.empty() || spelled.find('\\') != std::string_view::npos) break;
    // Only a comment may follow on the line.
    size_t end = skipBlanksAndComments(source, close + 1, false);
    if (end == std::string_view::npos) break;
    if (end < source.size() && source[end] != '\n') break;
    if (end < source.size()) ++end; // the newline
    includes.push_back({std::string(spelled), end});
    at = end;
  }
  return includes;
}

std::optional<std::pair<std::string, bool>>
findAngledInclude(const std::string& spelled, const std::vector<std::string>& arguments,
                  const std::string& directory) {
  // Clang searches the -I folders first, then the -isystem ones, whatever their order.
  std::vector<std::string> user;
  std::vector<std::string> system;
  for (size_t i = 0; i < arguments.size(); ++i) {
    llvm::StringRef argument = arguments[i];
    std::vector<std::string>* into = nullptr;
    llvm::StringRef folder;
    for (auto [flag, list] : {std::pair<llvm::StringRef, std::vector<std::string>*>{"-I", &user},
                              {"--include-directory=", &user},
                              {"-isystem", &system}}) {
      if (!argument.starts_with(flag)) continue;
      into = list;
      folder = argument.drop_front(flag.size());
      if (folder.empty() && !flag.ends_with("=") && i + 1 < arguments.size()) {
        folder = arguments[++i];
      }
      break;
    }
    if (into != nullptr && !folder.empty()) into->push_back(absoluteIn(directory, folder));
  }
  for (const auto& [folders, isSystem] : {std::pair{&user, false}, std::pair{&system, true}}) {
    for (const std::string& folder : *folders) {
      llvm::SmallString<256> candidate(folder);
      llvm::sys::path::append(candidate, spelled);
      if (llvm::sys::fs::is_regular_file(candidate)) {
        llvm::SmallString<256> real;
        if (llvm::sys::fs::real_path(candidate, real)) real = candidate;
        return std::make_pair(std::string(real), isSystem);
      }
    }
  }
  return std::nullopt;
}

PrecompiledHeaders::PrecompiledHeaders(std::string folder, bool trace)
    : temporary_(folder.empty()), trace_(trace) {
  llvm::SmallString<256> absolute(folder);
  if (!folder.empty() && !llvm::sys::fs::make_absolute(absolute)) folder_ = std::string(absolute);
  if (!temporary_ && folder_.empty()) folder_ = std::move(folder);
}

PrecompiledHeaders::~PrecompiledHeaders() {
  if (temporary_ && !folder_.empty()) llvm::sys::fs::remove_directories(folder_);
}

std::string PrecompiledHeaders::folderOf() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (folder_.empty() && temporary_) {
    llvm::SmallString<256> created;
    if (!llvm::sys::fs::createUniqueDirectory("gradlint-pch", created)) {
      folder_ = std::string(created);
    }
  } else if (!temporary_) {
    llvm::sys::fs::create_directories(folder_);
  }
  return folder_;
}

std::shared_ptr<const PrecompiledHeader> PrecompiledHeaders::get(const PrefixRequest& request) {
  ProjectFolders split = splitProjectFolders(request.arguments, request.directory);
  if (!split.folders.empty()) {
    // First, the header of the same lines and flags without the project's folders, shared by
    // the units of every build folder: LibTorch parsed once for a repository of many projects.
    PrefixRequest shared = request;
    shared.arguments = std::move(split.rest);
    const std::string key =
        keyOf(shared, namesRelativePath(shared.arguments) ? shared.directory : "");
    const std::shared_ptr<Slot> slot = slotFor(key);
    if (const auto header = headerOf(*slot, shared, key, "without the -I folders")) {
      std::lock_guard<std::mutex> lock(slot->mutex);
      bool hidden = false;
      for (const std::string& folder : split.folders) {
        auto [it, inserted] = slot->hides.try_emplace(folder, false);
        if (inserted) it->second = hidesAHeldHeader(folder, *header);
        hidden = hidden || it->second;
      }
      if (!hidden) return header;
    }
  }
  const std::string key = keyOf(request, request.directory);
  return headerOf(*slotFor(key), request, key, "");
}

std::shared_ptr<PrecompiledHeaders::Slot> PrecompiledHeaders::slotFor(const std::string& key) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto& entry = slots_[hexDigest(key)];
  if (!entry) entry = std::make_shared<Slot>();
  return entry;
}

std::shared_ptr<const PrecompiledHeader> PrecompiledHeaders::headerOf(
    Slot& slot, const PrefixRequest& request, const std::string& key, std::string_view variant) {
  std::lock_guard<std::mutex> lock(slot.mutex);
  if (slot.done) return slot.header;
  slot.done = true;
  const std::string folder = folderOf();
  if (folder.empty()) return nullptr;
  const std::string base = folder + "/" + hexDigest(key);
  if (!temporary_) slot.header = load(base, key);
  if (!slot.header) slot.header = build(request, base, key, variant);
  return slot.header;
}

// The manifest (BASE.files): the format, the key, then the held files, one a line:
// "SIZE MTIME_NS SYSTEM PATH" (SYSTEM: 1 or 0; the prefix file first, with S for SYSTEM).
std::shared_ptr<const PrecompiledHeader> PrecompiledHeaders::load(const std::string& base,
                                                                  const std::string& key) {
  auto buffer = llvm::MemoryBuffer::getFile(base + ".files", /*IsText=*/true);
  if (!buffer || !llvm::sys::fs::exists(base + ".pch")) return nullptr;
  llvm::StringRef text = (*buffer)->getBuffer();
  const std::string header = std::string(kManifestFormat) + "\n" + key;
  if (!text.consume_front(header) || !text.consume_front("--\n")) return nullptr;
  auto result = std::make_shared<PrecompiledHeader>();
  result->path = base + ".pch";
  while (!text.empty()) {
    auto [line, rest] = text.split('\n');
    text = rest;
    llvm::StringRef size, mtime, system;
    std::tie(size, line) = line.split(' ');
    std::tie(mtime, line) = line.split(' ');
    std::tie(system, line) = line.split(' ');
    uint64_t expectedSize = 0;
    int64_t expectedMtime = 0;
    if (size.getAsInteger(10, expectedSize) || mtime.getAsInteger(10, expectedMtime) ||
        line.empty()) {
      return nullptr;
    }
    const std::string path = line.str();
    const std::optional<FileStat> now = statOf(path);
    if (!now || now->size != expectedSize || now->mtimeNs != expectedMtime) {
      if (trace_) {
        std::cerr << fmt::format("gradlint: stats: precompiled header {}.pch is out of date "
                                 "({} changed): rebuilding it\n",
                                 base, path);
      }
      return nullptr;
    }
    if (system != "S") result->headers.push_back({path, system == "1"});
  }
  for (const char* extension : {".pch", ".files", ".h"}) markUsed(base + extension);
  if (trace_) {
    std::cerr << fmt::format("gradlint: stats: precompiled header {}.pch reused ({} headers)\n",
                             base, result->headers.size());
  }
  return result;
}

std::shared_ptr<const PrecompiledHeader> PrecompiledHeaders::build(const PrefixRequest& request,
                                                                   const std::string& base,
                                                                   const std::string& key,
                                                                   std::string_view variant) {
  const auto start = std::chrono::steady_clock::now();
  const auto fail = [&](std::string_view why) -> std::shared_ptr<const PrecompiledHeader> {
    if (trace_) {
      std::cerr << fmt::format("gradlint: stats: no precompiled header for {} include line(s) "
                               "in {}{}{}: {}\n",
                               request.includes.size(), request.directory,
                               variant.empty() ? "" : " ", variant, why);
    }
    return nullptr;
  };
  std::string prefix;
  for (const std::string& include : request.includes) prefix += "#include <" + include + ">\n";
  // The prefix file is rewritten only when missing or different: its modification time is one
  // of the precompiled header's inputs (another run may be using it).
  const std::string prefixPath = base + ".h";
  auto existing = llvm::MemoryBuffer::getFile(prefixPath, /*IsText=*/true);
  if ((!existing || (*existing)->getBuffer() != prefix) && !writeAtomically(prefixPath, prefix)) {
    return fail("cannot write " + prefixPath);
  }
  clang::tooling::CompileCommand command;
  command.Directory = request.directory;
  command.Filename = prefixPath;
  command.CommandLine = request.arguments;
  command.CommandLine.insert(command.CommandLine.end(), {"-xc++-header", prefixPath});
  SingleCommand database(command);
  clang::tooling::ClangTool tool(database, {prefixPath},
                                 std::make_shared<clang::PCHContainerOperations>(),
                                 llvm::vfs::createPhysicalFileSystem());
  tool.clearArgumentsAdjusters(); // the arguments are the units' own, already adjusted
  // Counts the errors and prints nothing: a header that does not build only means that the
  // units parse their headers themselves, and report any error there as they always did.
  clang::DiagnosticConsumer errors;
  tool.setDiagnosticConsumer(&errors);
  tool.setPrintErrorMessage(false);
  std::vector<PrecompiledFile> files;
  llvm::SmallString<256> realPrefix;
  if (llvm::sys::fs::real_path(prefixPath, realPrefix)) realPrefix = prefixPath;
  const std::string output = base + ".pch";
  BuildActionFactory factory(output, files);
  const int status = tool.run(&factory);
  if (status != 0 || errors.getNumErrors() > 0 || !llvm::sys::fs::exists(output)) {
    llvm::sys::fs::remove(output);
    return fail(errors.getNumErrors() > 0 ? "the headers do not compile" : "the build failed");
  }
  auto result = std::make_shared<PrecompiledHeader>();
  result->path = output;
  std::string manifest = std::string(kManifestFormat) + "\n" + key + "--\n";
  for (const PrecompiledFile& file : files) {
    const std::optional<FileStat> stat = statOf(file.path);
    if (!stat) return fail(file.path + " is gone");
    const bool isPrefix = file.path == realPrefix;
    manifest += fmt::format("{} {} {} {}\n", stat->size, stat->mtimeNs,
                            isPrefix ? "S" : (file.system ? "1" : "0"), file.path);
    if (!isPrefix) result->headers.push_back(file);
  }
  if (!temporary_ && !writeAtomically(base + ".files", manifest)) {
    return fail("cannot write " + base + ".files");
  }
  if (trace_) {
    std::cerr << fmt::format("gradlint: stats: precompiled header {} built ({} headers, "
                             "{:.1f} s)\n",
                             output, result->headers.size(),
                             std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                                           start)
                                 .count());
  }
  return result;
}

} // namespace gradlint::cpp
