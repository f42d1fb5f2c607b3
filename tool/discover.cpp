#include "tool/discover.h"

#include <git2.h>

#include <cstdlib>

#include <dlfcn.h>
#include <fnmatch.h>

#include <algorithm>
#include <filesystem>
#include <memory>
#include <string>
#include <system_error>
#include <type_traits>
#include <unordered_map>

namespace fs = std::filesystem;

namespace gradlint {
namespace {

// The part of libgit2 discovery uses, opened on first need (see CMakeLists.txt): a run outside
// any repository never loads it.
struct LibGit2 {
  decltype(&git_libgit2_init) init = nullptr;
  decltype(&git_libgit2_shutdown) shutdown = nullptr;
  decltype(&git_repository_discover) discover = nullptr;
  decltype(&git_repository_open) open = nullptr;
  decltype(&git_repository_free) free = nullptr;
  decltype(&git_repository_workdir) workdir = nullptr;
  decltype(&git_ignore_path_is_ignored) isIgnored = nullptr;
  decltype(&git_buf_dispose) bufDispose = nullptr;

  // Null, with `error` set, when the library or one of its functions is missing.
  static const LibGit2* get(std::string& error) {
    static std::string loadError;
    static const LibGit2* library = [] {
      void* handle = dlopen(GRADLINT_LIBGIT2_SONAME, RTLD_NOW | RTLD_LOCAL);
      if (handle == nullptr) {
        loadError = dlerror();
        return static_cast<LibGit2*>(nullptr);
      }
      auto* git = new LibGit2; // kept for the process, like the library
      bool complete = true;
      auto bind = [&](auto& function, const char* name) {
        function = reinterpret_cast<std::remove_reference_t<decltype(function)>>(dlsym(handle, name));
        if (function == nullptr) {
          complete = false;
          loadError = std::string(GRADLINT_LIBGIT2_SONAME) + " has no " + name;
        }
      };
      bind(git->init, "git_libgit2_init");
      bind(git->shutdown, "git_libgit2_shutdown");
      bind(git->discover, "git_repository_discover");
      bind(git->open, "git_repository_open");
      bind(git->free, "git_repository_free");
      bind(git->workdir, "git_repository_workdir");
      bind(git->isIgnored, "git_ignore_path_is_ignored");
      bind(git->bufDispose, "git_buf_dispose");
      return complete ? git : nullptr;
    }();
    if (library == nullptr) error = loadError;
    return library;
  }
};

// libgit2 answers "is this path ignored" with git's own rules (nested .gitignore files,
// negations, info/exclude, core.excludesFile), so we do not re-implement them.
class GitIgnore {
public:
  GitIgnore() = default;
  ~GitIgnore() {
    if (git_ == nullptr) return;
    for (auto& [root, repo] : repos_) git_->free(repo);
    git_->shutdown();
  }
  // Why libgit2 could not be used, if it could not ("" otherwise).
  const std::string& loadError() const { return loadError_; }
  GitIgnore(const GitIgnore&) = delete;
  GitIgnore& operator=(const GitIgnore&) = delete;

  bool ignored(const fs::path& path, bool isDirectory) {
    git_repository* repo = repositoryFor(path.parent_path());
    if (repo == nullptr) return false;
    const char* workdir = git_->workdir(repo);
    if (workdir == nullptr) return false;
    std::error_code ec;
    fs::path relative = fs::relative(fs::absolute(path, ec), workdir, ec);
    if (ec || relative.empty() || *relative.begin() == "..") return false;
    std::string name = relative.generic_string();
    if (isDirectory) name += '/';
    int ignored = 0;
    if (git_->isIgnored(&ignored, repo, name.c_str()) != 0) return false;
    return ignored != 0;
  }

private:
  git_repository* repositoryFor(const fs::path& directory) {
    std::error_code ec;
    const fs::path absolute = fs::absolute(directory, ec);
    const std::string key = absolute.string();
    if (auto it = lookups_.find(key); it != lookups_.end()) return it->second;
    // Below a folder already looked up, only a `.git` of its own can change the answer: one
    // stat instead of libgit2's walk up to the file system root for every folder.
    if (auto parent = lookups_.find(absolute.parent_path().string());
        parent != lookups_.end() && absolute.has_relative_path() &&
        !fs::exists(absolute / ".git", ec)) {
      lookups_[key] = parent->second;
      return parent->second;
    }
    // Starting libgit2 costs milliseconds (it loads the system's certificates): only when a
    // `.git` above the folder makes a repository possible.
    if (!initialised_) {
      bool found = false;
      for (fs::path at = absolute; !found; at = at.parent_path()) {
        found = fs::exists(at / ".git", ec);
        if (at == at.parent_path()) break;
      }
      if (!found && std::getenv("GIT_DIR") == nullptr) {
        lookups_[key] = nullptr;
        return nullptr;
      }
      initialised_ = true;
      git_ = LibGit2::get(loadError_);
      if (git_ != nullptr) git_->init();
    }
    if (git_ == nullptr) {
      lookups_[key] = nullptr;
      return nullptr;
    }
    git_buf root = GIT_BUF_INIT;
    git_repository* repo = nullptr;
    if (git_->discover(&root, key.c_str(), 0, nullptr) == 0) {
      const std::string rootPath(root.ptr, root.size);
      if (auto it = repos_.find(rootPath); it != repos_.end()) {
        repo = it->second;
      } else if (git_->open(&repo, rootPath.c_str()) == 0) {
        repos_[rootPath] = repo;
      } else {
        repo = nullptr;
      }
    }
    git_->bufDispose(&root);
    lookups_[key] = repo;
    return repo;
  }

  bool initialised_ = false; // loading libgit2 was tried
  const LibGit2* git_ = nullptr;
  std::string loadError_;
  std::unordered_map<std::string, git_repository*> repos_;   // owned
  std::unordered_map<std::string, git_repository*> lookups_; // directory -> repo (or null)
};

bool matchesAny(const std::vector<std::string>& globs, const fs::path& path) {
  const std::string full = path.generic_string();
  const std::string base = path.filename().string();
  return std::any_of(globs.begin(), globs.end(), [&](const std::string& glob) {
    return fnmatch(glob.c_str(), base.c_str(), 0) == 0 ||
           fnmatch(glob.c_str(), full.c_str(), 0) == 0 ||
           fnmatch(("*/" + glob).c_str(), full.c_str(), 0) == 0;
  });
}

bool isSkippedDirectory(const fs::path& directory) {
  const std::string name = directory.filename().string();
  if (name.size() > 1 && name[0] == '.') return true; // hidden: .git, .venv, .tox, ...
  if (name == "site-packages" || name == "dist-packages" || name == "__pycache__" ||
      name == "node_modules") {
    return true;
  }
  std::error_code ec;
  return fs::exists(directory / "pyvenv.cfg", ec); // a virtualenv under any name
}

class PackageLayout {
public:
  bool hasInit(const fs::path& directory) {
    const std::string key = directory.string();
    if (auto it = cache_.find(key); it != cache_.end()) return it->second;
    std::error_code ec;
    const bool result = fs::is_regular_file(directory / "__init__.py", ec);
    cache_[key] = result;
    return result;
  }

  SourceFileRef describe(const std::string& displayPath) {
    SourceFileRef ref;
    ref.path = displayPath;
    const fs::path path(displayPath);
    const std::string stem = path.stem().string();
    ref.isPackageInit = stem == "__init__";
    // Every file of a folder shares its package prefix: worked out once per folder.
    const Package& package = packageOf(path.parent_path().string());
    ref.inPackage = package.inPackage;
    ref.moduleName = package.prefix;
    if (!ref.isPackageInit) {
      if (!ref.moduleName.empty()) ref.moduleName += '.';
      ref.moduleName += stem;
    }
    return ref;
  }

private:
  struct Package {
    bool inPackage = false;
    std::string prefix; // pkg.sub for pkg/sub/ (both with __init__.py); empty outside packages
  };

  const Package& packageOf(const std::string& folder) {
    if (auto it = packages_.find(folder); it != packages_.end()) return it->second;
    Package package;
    std::error_code ec;
    const fs::path directory =
        fs::absolute(folder.empty() ? fs::path(".") : fs::path(folder), ec).lexically_normal();
    // Walk up while folders are packages: pkg/sub/mod.py -> pkg.sub.mod
    std::vector<std::string> parts;
    for (fs::path at = directory; !at.empty() && hasInit(at); at = at.parent_path()) {
      package.inPackage = true;
      parts.push_back(at.filename().string());
      if (at == at.parent_path()) break;
    }
    std::reverse(parts.begin(), parts.end());
    for (size_t i = 0; i < parts.size(); ++i) {
      if (i > 0) package.prefix += '.';
      package.prefix += parts[i];
    }
    return packages_.emplace(folder, std::move(package)).first->second;
  }

  std::unordered_map<std::string, bool> cache_;
  std::unordered_map<std::string, Package> packages_; // by folder as written
};

// A file named on the command line, with --force-exclude: excluded when it or one of the
// folders it was named through is.
bool isForceExcluded(const fs::path& file, const DiscoveryOptions& options) {
  if (matchesAny(options.excludes, file)) return true;
  if (options.isExcluded && options.isExcluded(file, false)) return true;
  for (fs::path folder = file.parent_path(); !folder.empty() && folder != folder.parent_path();
       folder = folder.parent_path()) {
    const std::string name = folder.filename().string();
    if (name == "." || name == "..") break;
    if (matchesAny(options.excludes, folder)) return true;
    if (options.isExcluded && options.isExcluded(folder, true)) return true;
  }
  return false;
}

} // namespace

bool isPythonPath(const std::string& path) {
  return path.ends_with(".py") || path.ends_with(".pyi");
}

bool isCppSourcePath(const std::string& path) {
  return path.ends_with(".cpp") || path.ends_with(".cc") || path.ends_with(".cxx") ||
         path.ends_with(".cu");
}

bool isCppPath(const std::string& path) {
  return isCppSourcePath(path) || path.ends_with(".h") || path.ends_with(".hpp") ||
         path.ends_with(".hh") || path.ends_with(".hxx") || path.ends_with(".cuh");
}

SourceFileRef describeFile(const std::string& path) {
  PackageLayout layout;
  return layout.describe(path);
}

DiscoveryResult discoverFiles(const std::vector<std::string>& roots,
                              const DiscoveryOptions& options) {
  DiscoveryResult result;
  GitIgnore gitIgnore;
  PackageLayout layout;
  for (const std::string& root : roots) {
    std::error_code ec;
    const fs::file_status status = fs::status(root, ec);
    if (ec || !fs::exists(status)) {
      result.errors.push_back(root + ": no such file or directory");
      continue;
    }
    if (!fs::is_directory(status)) {
      // Named on the command line: checked even if it would be excluded when discovered,
      // unless --force-exclude.
      if (!fs::is_regular_file(status)) {
        result.errors.push_back(root + ": not a regular file");
        continue;
      }
      if (options.forceExclude && isForceExcluded(fs::path(root), options)) continue;
      result.files.push_back(layout.describe(root));
      continue;
    }
    // An explicit stack instead of recursion; symlinked folders are not followed, so a symlink
    // loop cannot trap the walk.
    std::vector<fs::path> pending{fs::path(root)};
    while (!pending.empty()) {
      const fs::path directory = std::move(pending.back());
      pending.pop_back();
      std::vector<fs::directory_entry> entries;
      // An unreadable folder is an error the user must hear about, not an empty one.
      fs::directory_iterator it(directory, ec);
      if (ec) {
        result.errors.push_back(directory.generic_string() + ": " + ec.message());
        continue;
      }
      for (const fs::directory_entry& entry : it) entries.push_back(entry);
      std::sort(entries.begin(), entries.end());
      for (auto at = entries.rbegin(); at != entries.rend(); ++at) {
        const fs::path& path = at->path();
        std::error_code entryError;
        // The entry's type comes from the folder listing (d_type) where the file system gives
        // it: no stat per entry of a large tree.
        const bool symlink = at->is_symlink(entryError);
        if (entryError) continue;
        const bool isFolder = !symlink && at->is_directory(entryError);
        if (entryError) continue;
        if (isFolder) {
          if (isSkippedDirectory(path) || matchesAny(options.excludes, path)) continue;
          if (options.isExcluded && options.isExcluded(path, true)) continue;
          if (options.respectGitignore && gitIgnore.ignored(path, true)) continue;
          pending.push_back(path);
        } else if (isPythonPath(path.filename().string()) ||
                   (options.includeCppSources && isCppSourcePath(path.filename().string()))) {
          if (symlink) {
            const fs::file_status target = fs::status(path, entryError);
            if (entryError || !fs::is_regular_file(target)) continue;
          } else if (!at->is_regular_file(entryError)) {
            // FIFOs, sockets and devices are never read: a FIFO would block the run forever.
            std::string display = path.generic_string();
            if (display.starts_with("./")) display = display.substr(2);
            result.warnings.push_back(display + ": skipped: not a regular file");
            continue;
          }
          if (matchesAny(options.excludes, path)) continue;
          if (options.isExcluded && options.isExcluded(path, false)) continue;
          if (options.respectGitignore && gitIgnore.ignored(path, false)) continue;
          std::string display = path.generic_string();
          if (display.starts_with("./")) display = display.substr(2);
          result.files.push_back(layout.describe(display));
        }
      }
    }
  }
  std::sort(result.files.begin(), result.files.end(),
            [](const SourceFileRef& a, const SourceFileRef& b) { return a.path < b.path; });
  result.files.erase(std::unique(result.files.begin(), result.files.end(),
                                 [](const SourceFileRef& a, const SourceFileRef& b) {
                                   return a.path == b.path;
                                 }),
                     result.files.end());
  if (!gitIgnore.loadError().empty()) {
    result.warnings.push_back(".gitignore files were not applied: could not load libgit2: " +
                              gitIgnore.loadError());
  }
  return result;
}

} // namespace gradlint
