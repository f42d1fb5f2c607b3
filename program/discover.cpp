#include "program/discover.h"

#include "checkers/python/notebook.h"

#include <git2.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include <dirent.h>
#include <dlfcn.h>
#include <fnmatch.h>
#include <sys/stat.h>

#include <algorithm>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
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
        function =
            reinterpret_cast<std::remove_reference_t<decltype(function)>>(dlsym(handle, name));
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

  // False when no repository holds the folder: its entries need no ignore lookup each. Its
  // listing says whether it holds a `.git`.
  bool mayIgnoreIn(const std::string& absoluteFolder, bool holdsDotGit) {
    return repositoryFor(absoluteFolder, holdsDotGit) != nullptr;
  }

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
  git_repository* repositoryFor(const fs::path& directory,
                                std::optional<bool> holdsDotGit = std::nullopt) {
    std::error_code ec;
    const fs::path absolute = fs::absolute(directory, ec);
    const std::string key = absolute.string();
    if (auto it = lookups_.find(key); it != lookups_.end()) return it->second;
    // Below a folder already looked up, only a `.git` of its own can change the answer: one
    // stat (or none) instead of libgit2's walk up to the file system root for every folder.
    if (auto parent = lookups_.find(absolute.parent_path().string());
        parent != lookups_.end() && absolute.has_relative_path() &&
        !(holdsDotGit ? *holdsDotGit : fs::exists(absolute / ".git", ec))) {
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

// `folder/name`, the way std::filesystem::path's `/` joins them.
std::string joinPath(std::string_view folder, std::string_view name) {
  std::string joined(folder);
  if (!joined.empty() && joined.back() != '/') joined += '/';
  joined += name;
  return joined;
}

bool matchesAny(const std::vector<std::string>& globs, const std::string& path) {
  if (globs.empty()) return false;
  const std::string base = path.substr(path.rfind('/') + 1);
  return std::any_of(globs.begin(), globs.end(), [&](const std::string& glob) {
    return fnmatch(glob.c_str(), base.c_str(), 0) == 0 ||
           fnmatch(glob.c_str(), path.c_str(), 0) == 0 ||
           fnmatch(("*/" + glob).c_str(), path.c_str(), 0) == 0;
  });
}

// Folders skipped by name; a virtualenv under any other name is recognised once listed (it
// holds a pyvenv.cfg).
bool isSkippedDirectory(std::string_view name) {
  if (name.size() > 1 && name[0] == '.') return true; // hidden: .git, .venv, .tox, ...
  return name == "site-packages" || name == "dist-packages" || name == "__pycache__" ||
         name == "node_modules";
}

enum class EntryKind { kFile, kFolder, kSymlink, kOther };

struct FolderEntry {
  std::string name;
  EntryKind kind;
};

// A folder's entries, typed from the listing itself (d_type) where the file system gives it: no
// stat per entry of a large tree, and no std::filesystem::path built per entry either.
bool listFolder(const std::string& folder, std::vector<FolderEntry>& entries, std::string& error) {
  DIR* handle = ::opendir(folder.c_str());
  if (handle == nullptr) {
    error = std::strerror(errno);
    return false;
  }
  errno = 0;
  while (const dirent* entry = ::readdir(handle)) {
    const std::string_view name = entry->d_name;
    if (name == "." || name == "..") continue;
    EntryKind kind = EntryKind::kOther;
    unsigned char type = entry->d_type;
    if (type == DT_UNKNOWN) {
      struct stat info {};
      if (::lstat(joinPath(folder, name).c_str(), &info) != 0) continue;
      type = S_ISREG(info.st_mode) ? DT_REG : S_ISDIR(info.st_mode) ? DT_DIR
                                            : S_ISLNK(info.st_mode) ? DT_LNK
                                                                    : DT_UNKNOWN;
    }
    if (type == DT_REG) kind = EntryKind::kFile;
    if (type == DT_DIR) kind = EntryKind::kFolder;
    if (type == DT_LNK) kind = EntryKind::kSymlink;
    entries.push_back({std::string(name), kind});
    errno = 0;
  }
  const int listError = errno;
  ::closedir(handle);
  if (listError != 0) {
    error = std::strerror(listError);
    return false;
  }
  return true;
}

// The entry called `name` of a listing sorted by name, or null.
const FolderEntry* findEntry(const std::vector<FolderEntry>& entries, std::string_view name) {
  auto it = std::lower_bound(
      entries.begin(), entries.end(), name,
      [](const FolderEntry& entry, std::string_view wanted) { return entry.name < wanted; });
  return it != entries.end() && it->name == name ? &*it : nullptr;
}

// The absolute, normal form of a folder given on the command line, without a trailing slash:
// the key its listing's facts are filed under.
std::string absoluteFolder(const std::string& folder) {
  std::error_code ec;
  std::string absolute = fs::absolute(fs::path(folder), ec).lexically_normal().string();
  while (absolute.size() > 1 && absolute.back() == '/') absolute.pop_back();
  return absolute;
}

class PackageLayout {
public:
  // What a folder's listing already says (by its absolute, normal path): no stat for it later.
  void noteFolder(const std::string& absoluteFolder, bool holdsInit) {
    cache_.try_emplace(absoluteFolder, holdsInit);
  }

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
    // Plain string work: discovery describes every file, and fs::path splits into components.
    const size_t slash = displayPath.rfind('/');
    const std::string_view name =
        std::string_view(displayPath).substr(slash == std::string::npos ? 0 : slash + 1);
    const size_t dot = name.rfind('.');
    const std::string_view stem =
        dot == std::string_view::npos || dot == 0 || name == ".." ? name : name.substr(0, dot);
    ref.isPackageInit = stem == "__init__";
    // Every file of a folder shares its package prefix: worked out once per folder.
    const std::string folder = slash == std::string::npos ? std::string()
                               : slash == 0                ? std::string("/")
                                                           : displayPath.substr(0, slash);
    const Package& package = packageOf(folder);
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
  if (matchesAny(options.excludes, file.native())) return true;
  if (options.isExcluded && options.isExcluded(file.native())) return true;
  for (fs::path folder = file.parent_path(); !folder.empty() && folder != folder.parent_path();
       folder = folder.parent_path()) {
    const std::string name = folder.filename().string();
    if (name == "." || name == "..") break;
    if (matchesAny(options.excludes, folder.native())) return true;
    if (options.isExcluded && options.isExcluded(folder.native())) return true;
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
  // Headers, and the template/inline implementation files headers include.
  return isCppSourcePath(path) || path.ends_with(".h") || path.ends_with(".hpp") ||
         path.ends_with(".hh") || path.ends_with(".hxx") || path.ends_with(".cuh") ||
         path.ends_with(".tpp") || path.ends_with(".ipp") || path.ends_with(".inl");
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
    struct PendingFolder {
      std::string path;     // as displayed (under the root as given)
      std::string absolute; // absolute and normal: the key of what its listing says
    };
    std::vector<PendingFolder> pending{{root, absoluteFolder(root)}};
    std::vector<FolderEntry> entries;
    std::vector<std::string> names;
    while (!pending.empty()) {
      const PendingFolder directory = std::move(pending.back());
      pending.pop_back();
      entries.clear();
      // An unreadable folder is an error the user must hear about, not an empty one; worded as
      // for an unreadable file (docs/reliability.md).
      std::string listError;
      if (!listFolder(directory.path, entries, listError)) {
        result.errors.push_back(directory.path + ": cannot read: " + listError);
        continue;
      }
      std::sort(entries.begin(), entries.end(),
                [](const FolderEntry& a, const FolderEntry& b) { return a.name < b.name; });
      // A virtualenv under any name (a root named on the command line is still searched).
      if (directory.path != root && findEntry(entries, "pyvenv.cfg") != nullptr) continue;
      // What the listing says answers the questions asked of every folder (a configuration
      // here? a package? a repository?) without a stat each.
      if (options.onFolderListed) {
        names.clear();
        for (const FolderEntry& entry : entries) names.push_back(entry.name);
        options.onFolderListed(directory.absolute, names);
      }
      const FolderEntry* init = findEntry(entries, "__init__.py");
      if (init == nullptr || init->kind != EntryKind::kSymlink) {
        layout.noteFolder(directory.absolute, init != nullptr && init->kind == EntryKind::kFile);
      }
      // Outside any repository (most folders of most trees) no entry needs asking.
      const bool mayBeIgnored =
          options.respectGitignore &&
          gitIgnore.mayIgnoreIn(directory.absolute, findEntry(entries, ".git") != nullptr);
      for (auto at = entries.rbegin(); at != entries.rend(); ++at) {
        std::string path = joinPath(directory.path, at->name);
        if (at->kind == EntryKind::kFolder) {
          if (isSkippedDirectory(at->name) || matchesAny(options.excludes, path)) continue;
          if (options.isExcluded && options.isExcluded(path)) continue;
          std::string absolute = joinPath(directory.absolute, at->name);
          if (mayBeIgnored && gitIgnore.ignored(absolute, true)) continue;
          pending.push_back({std::move(path), std::move(absolute)});
          continue;
        }
        if (!isPythonPath(at->name) && !isNotebookPath(at->name) &&
            !(options.includeCppSources && isCppSourcePath(at->name))) {
          continue;
        }
        // Symlinked files are followed (symlinked folders are not: see above).
        std::string display = path.starts_with("./") ? path.substr(2) : path;
        if (at->kind == EntryKind::kSymlink) {
          struct stat target {};
          if (::stat(path.c_str(), &target) != 0 || !S_ISREG(target.st_mode)) continue;
        } else if (at->kind != EntryKind::kFile) {
          // FIFOs, sockets and devices are never read: a FIFO would block the run forever.
          result.warnings.push_back(display + ": skipped: not a regular file");
          continue;
        }
        if (matchesAny(options.excludes, path)) continue;
        if (options.isExcluded && options.isExcluded(path)) continue;
        if (mayBeIgnored && gitIgnore.ignored(joinPath(directory.absolute, at->name), false)) {
          continue;
        }
        result.files.push_back(layout.describe(display));
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
