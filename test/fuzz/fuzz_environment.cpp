// libFuzzer target: bytes -> a small file tree (a project, a virtual environment, installed
// distributions) written into a fresh temporary folder, then `gradlint check --show-context
// TREE` run on it twice (cold, then with the cache the first run wrote): the project root and
// configuration, the Python environment (pyvenv.cfg, lib/pythonX.Y/site-packages, .pth lines,
// a python3 on PATH, pyenv), module resolution, distribution metadata (*.dist-info METADATA,
// RECORD, top_level.txt), the context collection, the caches and the check itself. Whatever
// the tree holds, the run must end with exit 0, 1 or 2 (an error naming what is wrong), never
// a crash, a hang or a sanitizer report. The tree is deleted after each input.
//
// The input is a line-delimited archive (text, so hand-written seeds and the dictionary work):
//
//   @@ PATH          a file; its content is every line up to the next `@@` line (the newline
//                    before that line included), so `@@ a.py` followed by `@@ b.py` is empty;
//                    `$TREE` in it stands for the tree's absolute path (pyvenv.cfg's `home`
//                    and .pth lines are absolute paths)
//   @@ PATH/         a folder (nothing follows)
//   @@> PATH TARGET  a symbolic link PATH -> TARGET (TARGET relative to PATH's folder)
//   @@! KEY VALUE    a setting of the run: `python P` (--python TREE/P), `project-root P`
//                    (--project-root TREE/P), `check P` (check TREE/P instead of TREE; may be
//                    repeated), `venv P` (VIRTUAL_ENV=TREE/P), `conda P` (CONDA_PREFIX=TREE/P),
//                    `pyenv V` (PYENV_VERSION=V), `no-context` (--no-context)
//
// Lines before the first `@@` line are ignored. PATH and TARGET are relative, `/`-separated;
// an empty, `.` or `..` component, an absolute path, a NUL, a path over 200 bytes or 12
// components, or a link whose target leaves the tree is rejected (the entry is skipped: nothing
// is ever written outside the temporary folder). Links are made after every file and folder,
// so no write goes through one. At most 64 entries and 16 KiB per file. The run also sees
// PATH=TREE/bin, HOME=TREE/home and PYENV_ROOT=TREE/.pyenv, so a python3 on PATH, the user's
// site folder and pyenv come from the tree too, never from the machine.
//
// test/fuzz/make_environment_seeds.py builds seeds in this format from test/context's trees.
#include "tool/check_command.h"
#include "program/engine.h"

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include <unistd.h>

namespace gradlint::probe {
// `check --confirm` (tool/probe) starts LibTorch processes; the fuzzer never asks for it.
bool confirmFindings(CheckResult&, const std::string&, std::string&) { std::abort(); }
} // namespace gradlint::probe

namespace {

namespace fs = std::filesystem;

constexpr size_t kMaxEntries = 64;
constexpr size_t kMaxFileBytes = 16 << 10;
constexpr size_t kMaxPathBytes = 200;
constexpr size_t kMaxDepth = 12;

enum class Kind { File, Folder, Link, Setting };

struct Entry {
  Kind kind = Kind::File;
  std::string path;
  std::string target;  // a link's target, a setting's value
  std::string content; // a file's
};

// `a/b/c`: relative, no empty, `.` or `..` component, no NUL, within the bounds.
bool isSafeRelative(std::string_view path) {
  if (path.empty() || path.size() > kMaxPathBytes || path.front() == '/' ||
      path.find('\0') != std::string_view::npos) {
    return false;
  }
  size_t depth = 0;
  size_t start = 0;
  while (true) {
    const size_t slash = path.find('/', start);
    const std::string_view part =
        path.substr(start, slash == std::string_view::npos ? std::string_view::npos
                                                           : slash - start);
    if (part.empty() || part == "." || part == ".." || ++depth > kMaxDepth) return false;
    if (slash == std::string_view::npos) return true;
    start = slash + 1;
  }
}

// A link's target, from the link's folder: relative, and lexically inside the tree.
bool staysInside(std::string_view link, std::string_view target) {
  if (target.empty() || target.size() > kMaxPathBytes || target.front() == '/' ||
      target.find('\0') != std::string_view::npos) {
    return false;
  }
  std::vector<std::string_view> at;
  for (size_t start = 0;;) { // the link's folder
    const size_t slash = link.find('/', start);
    if (slash == std::string_view::npos) break;
    at.push_back(link.substr(start, slash - start));
    start = slash + 1;
  }
  for (size_t start = 0;;) {
    const size_t slash = target.find('/', start);
    const std::string_view part =
        target.substr(start, slash == std::string_view::npos ? std::string_view::npos
                                                             : slash - start);
    if (part == "..") {
      if (at.empty()) return false;
      at.pop_back();
    } else if (!part.empty() && part != ".") {
      at.push_back(part);
    }
    if (slash == std::string_view::npos) return true;
    start = slash + 1;
  }
}

std::vector<Entry> decode(std::string_view bytes) {
  std::vector<Entry> entries;
  Entry* file = nullptr; // the file whose content the next lines are
  size_t at = 0;
  while (at < bytes.size() && entries.size() <= kMaxEntries) {
    size_t end = bytes.find('\n', at);
    end = end == std::string_view::npos ? bytes.size() : end + 1;
    const std::string_view line = bytes.substr(at, end - at);
    at = end;
    if (!line.starts_with("@@")) {
      if (file != nullptr && file->content.size() + line.size() <= kMaxFileBytes) {
        file->content += line;
      }
      continue;
    }
    std::string_view header = line.substr(2);
    if (header.ends_with('\n')) header.remove_suffix(1);
    file = nullptr;
    Entry entry;
    if (header.starts_with("> ")) {
      entry.kind = Kind::Link;
      header.remove_prefix(2);
      const size_t space = header.find(' ');
      if (space == std::string_view::npos) continue;
      entry.path = header.substr(0, space);
      entry.target = header.substr(space + 1);
    } else if (header.starts_with("! ")) {
      entry.kind = Kind::Setting;
      header.remove_prefix(2);
      const size_t space = header.find(' ');
      entry.path = header.substr(0, space);
      if (space != std::string_view::npos) entry.target = header.substr(space + 1);
    } else if (header.starts_with(' ')) {
      header.remove_prefix(1);
      if (header.ends_with('/')) {
        entry.kind = Kind::Folder;
        header.remove_suffix(1);
      }
      entry.path = header;
    } else {
      continue;
    }
    entries.push_back(std::move(entry));
    if (entries.back().kind == Kind::File) file = &entries.back();
  }
  if (entries.size() > kMaxEntries) entries.resize(kMaxEntries);
  return entries;
}

// Writes the tree under `root`; returns the run's arguments.
gradlint::CheckArgs writeTree(const std::vector<Entry>& entries, const fs::path& root) {
  gradlint::CheckArgs args;
  std::error_code ec;
  for (const Entry& entry : entries) {
    if (entry.kind == Kind::Setting) {
      const bool takesPath = entry.path != "pyenv" && entry.path != "no-context";
      if (takesPath && !isSafeRelative(entry.target) && entry.target != ".") continue;
      const std::string path = (root / entry.target).lexically_normal().string();
      if (entry.path == "python") args.python = path;
      if (entry.path == "project-root") args.projectRoot = path;
      if (entry.path == "check") args.paths.push_back(path);
      if (entry.path == "venv") setenv("VIRTUAL_ENV", path.c_str(), 1);
      if (entry.path == "conda") setenv("CONDA_PREFIX", path.c_str(), 1);
      if (entry.path == "pyenv") setenv("PYENV_VERSION", entry.target.c_str(), 1);
      if (entry.path == "no-context") args.noContext = true;
      continue;
    }
    if (entry.kind == Kind::Link || !isSafeRelative(entry.path)) continue;
    const fs::path path = root / entry.path;
    // Never through a link (none exists yet) nor over a folder written before.
    fs::create_directories(entry.kind == Kind::Folder ? path : path.parent_path(), ec);
    if (entry.kind == Kind::File && !fs::exists(fs::symlink_status(path, ec))) {
      std::string content = entry.content;
      for (size_t at = 0; (at = content.find("$TREE", at)) != std::string::npos;) {
        content.replace(at, 5, root.string());
        at += root.string().size();
      }
      std::ofstream(path, std::ios::binary) << content;
    }
  }
  for (const Entry& entry : entries) {
    if (entry.kind != Kind::Link || !isSafeRelative(entry.path) ||
        !staysInside(entry.path, entry.target)) {
      continue;
    }
    const fs::path path = root / entry.path;
    fs::create_directories(path.parent_path(), ec);
    fs::create_symlink(entry.target, path, ec);
  }
  if (args.paths.empty()) args.paths.push_back(root.string());
  return args;
}

fs::path scratchFolder() {
  const char* tmp = std::getenv("TMPDIR");
  fs::path base = fs::exists("/dev/shm") ? fs::path("/dev/shm")
                  : tmp != nullptr        ? fs::path(tmp)
                                          : fs::path("/tmp");
  return base / ("gradlint-fuzz-env-" + std::to_string(getpid()));
}

// A stream buffer that drops what it is given: the run's report and messages.
class NullBuffer : public std::streambuf {
protected:
  int overflow(int c) override { return traits_type::not_eof(c); }
  std::streamsize xsputn(const char*, std::streamsize count) override { return count; }
};

} // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  // Nothing of the machine's own Python setup reaches the run.
  for (const char* name : {"VIRTUAL_ENV", "CONDA_PREFIX", "PYENV_VERSION", "PYTHONUSERBASE",
                           "PYTHONNOUSERSITE", "GRADLINT_CACHE_DIR", "GRADLINT_NO_CACHE",
                           "GRADLINT_CACHE_MAX_SIZE"}) {
    unsetenv(name);
  }
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::vector<Entry> entries =
      decode(std::string_view(reinterpret_cast<const char*>(data), size));
  const fs::path scratch = scratchFolder();
  const fs::path tree = scratch / "tree";
  std::error_code ec;
  fs::remove_all(scratch, ec);
  fs::create_directories(tree, ec);
  for (const auto& [name, value] : {std::pair<const char*, const char*>{"PATH", "bin"},
                                    {"HOME", "home"},
                                    {"PYENV_ROOT", ".pyenv"}}) {
    setenv(name, (tree / value).c_str(), 1);
  }
  gradlint::CheckArgs args = writeTree(entries, tree);
  args.showContext = true;
  args.threads = 1;
  args.cacheDir = (scratch / "cache").string();
  NullBuffer null;
  std::streambuf* out = std::cout.rdbuf(&null);
  std::streambuf* err = std::cerr.rdbuf(&null);
  for (int run = 0; run < 2; ++run) { // cold, then with what the first run cached
    const int status = gradlint::runCheckCommand(args);
    if (status != gradlint::kExitClean && status != gradlint::kExitFindings &&
        status != gradlint::kExitError) {
      std::abort();
    }
  }
  std::cout.rdbuf(out);
  std::cerr.rdbuf(err);
  for (const char* name : {"VIRTUAL_ENV", "CONDA_PREFIX", "PYENV_VERSION"}) unsetenv(name);
  fs::remove_all(scratch, ec);
  return 0;
}
