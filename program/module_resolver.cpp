#include "program/module_resolver.h"

#include "checkers/ir/ascii.h"
#include "program/read_file.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <string_view>
#include <unordered_set>

#include <dirent.h>
#include <sys/stat.h>

namespace gradlint {
namespace {

namespace fs = std::filesystem;

std::vector<std::string> splitDots(const std::string& dotted) {
  std::vector<std::string> parts;
  size_t start = 0;
  while (start <= dotted.size()) {
    const size_t dot = dotted.find('.', start);
    parts.push_back(
        dotted.substr(start, dot == std::string::npos ? std::string::npos : dot - start));
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
  return parts;
}

// A name of a folder's listing that is an extension module: the `name` of name.so, name.pyd,
// name.cpython-311-x86_64-linux-gnu.so (empty when it is none).
std::string_view compiledModuleName(std::string_view file) {
  const size_t dot = file.find('.');
  if (dot == 0 || dot == std::string_view::npos) return {};
  if (!file.ends_with(".so") && !file.ends_with(".pyd")) return {};
  return file.substr(0, dot);
}

// What `path` is, links followed (stat(2), as a lookup of that path would).
// What `path` is; `problem` gets why an entry that exists cannot be looked at (a symlink loop,
// no permission), and stays empty for one that is not there.
FolderIndex::Kind kindAt(const std::string& path, std::string& problem) {
  struct stat info {};
  if (::stat(path.c_str(), &info) != 0) {
    if (errno == ELOOP) {
      problem = "a symbolic link loop";
    } else if (errno != ENOENT && errno != ENOTDIR) {
      problem = fmt::format("not readable ({})", std::strerror(errno));
    }
    return FolderIndex::Kind::None;
  }
  if (S_ISREG(info.st_mode)) return FolderIndex::Kind::File;
  if (S_ISDIR(info.st_mode)) return FolderIndex::Kind::Folder;
  return FolderIndex::Kind::Other;
}

// Modules compiled into the interpreter itself: found nowhere on disk, and not worth a report.
bool isBuiltinModule(std::string_view name) {
  static constexpr std::string_view kBuiltins[] = {
      "_abc",  "_codecs", "_collections", "_functools", "_imp",     "_io",   "_locale",
      "_operator", "_signal", "_sre", "_stat", "_string", "_thread", "_warnings", "_weakref",
      "atexit", "builtins", "errno", "faulthandler", "gc", "itertools", "marshal", "posix",
      "pwd", "sys", "time", "math", "_socket", "select", "array", "binascii", "zlib"};
  return std::find(std::begin(kBuiltins), std::end(kBuiltins), name) != std::end(kBuiltins);
}

std::string headerValue(std::string_view text, std::string_view key) {
  for (std::string_view line : Lines(text)) {
    if (line.empty() || line == "\r") break; // the headers end at the first blank line
    if (line.size() > key.size() + 1 && line.starts_with(key) && line[key.size()] == ':') {
      std::string_view value = line.substr(key.size() + 1);
      while (!value.empty() && (value.front() == ' ' || value.front() == '\t')) {
        value.remove_prefix(1);
      }
      while (!value.empty() && (value.back() == '\r' || value.back() == ' '))
        value.remove_suffix(1);
      return std::string(value);
    }
  }
  return {};
}

// A distribution name as pip compares them: lower case, runs of `-`, `_` and `.` as one `-`.
std::string normalDistributionName(std::string_view name) {
  std::string out;
  for (char c : name) {
    const bool separator = c == '-' || c == '_' || c == '.';
    if (separator) {
      if (!out.empty() && out.back() != '-') out += '-';
    } else {
      out += asciiLower(c);
    }
  }
  return out;
}

// The names of the `Requires-Dist:` headers (`accelerate>=0.2; extra == "torch"`: accelerate).
std::vector<std::string> requirementNames(std::string_view text) {
  std::vector<std::string> names;
  constexpr std::string_view kKey = "Requires-Dist:";
  for (std::string_view line : Lines(text)) {
    if (line.empty() || line == "\r") break; // the headers end at the first blank line
    if (!line.starts_with(kKey)) continue;
    std::string_view value = line.substr(kKey.size());
    while (!value.empty() && (value.front() == ' ' || value.front() == '\t'))
      value.remove_prefix(1);
    size_t end = 0;
    while (end < value.size() && (std::isalnum(static_cast<unsigned char>(value[end])) ||
                                  value[end] == '-' || value[end] == '_' || value[end] == '.')) {
      ++end;
    }
    if (end > 0) names.push_back(normalDistributionName(value.substr(0, end)));
  }
  return names;
}

// The top-level modules a distribution installed: top_level.txt, else the first path part of
// each RECORD line. The files tried join `tried`.
std::vector<std::string> topLevelModules(const fs::path& metadata,
                                         std::vector<std::string>& tried) {
  std::vector<std::string> names;
  std::string text;
  std::string error;
  tried.push_back((metadata / "top_level.txt").string());
  if (readWholeFile(tried.back(), text, error)) {
    for (std::string_view line : Lines(text)) {
      std::string name(line);
      while (!name.empty() && (name.back() == '\r' || name.back() == ' ')) name.pop_back();
      if (!name.empty()) names.push_back(name);
    }
    return names;
  }
  tried.push_back((metadata / "RECORD").string());
  if (!readWholeFile(tried.back(), text, error)) return names;
  for (std::string_view line : Lines(text)) {
    const size_t cut = line.find_first_of("/,");
    std::string_view first = line.substr(0, cut);
    if (first.empty() || first.starts_with("..") || first.ends_with(".dist-info") ||
        first == "__pycache__" || first.ends_with(".pth")) {
      continue;
    }
    if (cut != std::string_view::npos && line[cut] == ',') {
      // A module file at the top: `six.py`, `_cffi.cpython-311-x86_64-linux-gnu.so`.
      first = first.substr(0, first.find('.'));
    }
    if (std::find(names.begin(), names.end(), first) == names.end()) names.emplace_back(first);
  }
  return names;
}

} // namespace

std::string FolderIndex::join(const std::string& folder, const std::string& name) {
  return !folder.empty() && folder.back() == '/' ? folder + name : folder + "/" + name;
}

FolderIndex::Listing& FolderIndex::listingOf(const std::string& folder) {
  auto [found, added] = folders_.try_emplace(folder);
  Listing& listing = found->second;
  if (!added) return listing;
  DIR* dir = ::opendir(folder.c_str());
  if (dir == nullptr) return listing; // unreadable or absent: names are looked at one by one
  listing.listed = true;
  while (const dirent* entry = ::readdir(dir)) {
    const std::string_view name = entry->d_name;
    if (name == "." || name == "..") continue;
    Listing::Entry kind;
    switch (entry->d_type) {
    case DT_REG: kind.kind = Kind::File; break;
    case DT_DIR: kind.kind = Kind::Folder; break;
    case DT_LNK:
    case DT_UNKNOWN: kind.resolved = false; break; // looked at when asked about
    default: kind.kind = Kind::Other; break;
    }
    listing.entries.emplace(name, kind);
    // Compiled modules are named by what the listing holds (a link to one counts as well).
    if (const std::string_view module = compiledModuleName(name); !module.empty()) {
      listing.compiled.emplace(module);
    }
  }
  ::closedir(dir);
  return listing;
}

FolderIndex::Kind FolderIndex::kindOf(const std::string& folder, const std::string& name) {
  Listing& listing = listingOf(folder);
  auto found = listing.entries.find(name);
  if (found == listing.entries.end()) {
    if (listing.listed) return Kind::None;
    found = listing.entries.emplace(name, Listing::Entry{Kind::None, false}).first;
  }
  if (!found->second.resolved) {
    entriesLookedAt_.push_back(join(folder, name));
    std::string problem;
    found->second.kind = kindAt(entriesLookedAt_.back(), problem);
    found->second.resolved = true;
    if (!problem.empty()) problems_.emplace_back(entriesLookedAt_.back(), std::move(problem));
  }
  return found->second.kind;
}

const std::unordered_set<std::string>& FolderIndex::compiledModules(const std::string& folder) {
  return listingOf(folder).compiled;
}

void FolderIndex::pathsLookedAt(std::vector<std::string>& out) const {
  for (const auto& [folder, listing] : folders_) out.push_back(folder);
  out.insert(out.end(), entriesLookedAt_.begin(), entriesLookedAt_.end());
}

std::vector<std::pair<std::string, std::string>> ModuleResolver::problems() const {
  std::vector<std::pair<std::string, std::string>> all = folders_.problems();
  all.insert(all.end(), metadataProblems_.begin(), metadataProblems_.end());
  return all;
}

void ModuleResolver::pathsLookedAt(std::vector<std::string>& out) const {
  folders_.pathsLookedAt(out);
  out.insert(out.end(), metadataLookedAt_.begin(), metadataLookedAt_.end());
}

ModuleResolver::ModuleResolver(std::vector<SearchPath> searchPaths)
    : searchPaths_(std::move(searchPaths)) {}

std::optional<ResolvedModule> ModuleResolver::resolve(const std::string& dotted,
                                                      std::string* why) {
  auto [it, added] = resolved_.try_emplace(dotted);
  if (added) it->second = find(dotted);
  if (!it->second && why != nullptr) {
    const std::string top = dotted.substr(0, dotted.find('.'));
    *why = isBuiltinModule(top) ? "built into the interpreter"
           : searchPaths_.empty()
               ? "no search path (no project root and no Python environment)"
               : "not found in the project or the environment's search path";
    // An entry of that name that could not be looked at says more.
    for (const auto& [path, problem] : folders_.problems()) {
      if (fs::path(path).stem().string() == top) {
        *why = fmt::format("{} is {}", path, problem);
        break;
      }
    }
  }
  return it->second;
}

bool ModuleResolver::isUnreadStandardLibrary(const std::string& dotted) {
  const std::string top = dotted.substr(0, dotted.find('.'));
  if (isBuiltinModule(top)) return true;
  if (top == dotted) return false;
  const std::optional<ResolvedModule> topModule = resolve(top);
  return topModule && topModule->kind == ModuleFileKind::Stdlib;
}

std::optional<ResolvedModule> ModuleResolver::find(const std::string& dotted) {
  const std::vector<std::string> parts = splitDots(dotted);
  if (std::any_of(parts.begin(), parts.end(), [](const std::string& p) { return p.empty(); })) {
    return std::nullopt;
  }
  std::optional<ResolvedModule> namespaceFound;
  using Kind = FolderIndex::Kind;
  for (size_t index = 0; index < searchPaths_.size(); ++index) {
    const SearchPath& search = searchPaths_[index];
    std::string folder = search.folder.string();
    std::string relative;
    bool reachable = true;
    for (size_t i = 0; i + 1 < parts.size() && reachable; ++i) {
      reachable = folders_.kindOf(folder, parts[i]) == Kind::Folder;
      folder = FolderIndex::join(folder, parts[i]);
      relative += parts[i] + "/";
    }
    if (!reachable) continue;
    const std::string& last = parts.back();
    ResolvedModule module;
    module.searchKind = search.kind;
    module.searchPath = index;
    auto found = [&](ModuleFileKind kind, const std::string& file, std::string path, bool init) {
      module.kind = search.kind == SearchPathKind::Stdlib ? ModuleFileKind::Stdlib : kind;
      module.file = file;
      module.relativePath = std::move(path);
      module.isPackageInit = init;
      return module;
    };
    const bool isPackageFolder = folders_.kindOf(folder, last) == Kind::Folder;
    const std::string package = FolderIndex::join(folder, last);
    if (isPackageFolder && folders_.kindOf(package, "__init__.py") == Kind::File) {
      return found(ModuleFileKind::Source, FolderIndex::join(package, "__init__.py"),
                   relative + last + "/__init__.py", true);
    }
    if (folders_.kindOf(folder, last + ".py") == Kind::File) {
      return found(ModuleFileKind::Source, FolderIndex::join(folder, last + ".py"),
                   relative + last + ".py", false);
    }
    // Stubs carry declarations only; a .py beside them (above) is what runs.
    if (isPackageFolder && folders_.kindOf(package, "__init__.pyi") == Kind::File) {
      return found(ModuleFileKind::StubOnly, FolderIndex::join(package, "__init__.pyi"),
                   relative + last + "/__init__.pyi", true);
    }
    if (folders_.kindOf(folder, last + ".pyi") == Kind::File) {
      return found(ModuleFileKind::StubOnly, FolderIndex::join(folder, last + ".pyi"),
                   relative + last + ".pyi", false);
    }
    if (folders_.compiledModules(folder).count(last) != 0) {
      return found(ModuleFileKind::Compiled, package, relative + last, false);
    }
    // A namespace package spans every search path: a regular module later still wins.
    if (!namespaceFound && isPackageFolder) {
      namespaceFound = found(ModuleFileKind::Namespace, package, relative + last, false);
    }
  }
  return namespaceFound;
}

const Distribution* ModuleResolver::distributionOf(size_t index, const std::string& topLevel) {
  if (index >= searchPaths_.size()) return nullptr;
  auto [entry, added] = distributions_.try_emplace(index);
  if (added) {
    std::error_code ec;
    const fs::path& folder = searchPaths_[index].folder;
    metadataLookedAt_.push_back(folder.string());
    std::vector<fs::path> metadataFolders;
    for (fs::directory_iterator it(folder, ec), end; !ec && it != end; it.increment(ec)) {
      const std::string name = it->path().filename().string();
      if (name.ends_with(".dist-info") || name.ends_with(".egg-info")) {
        metadataFolders.push_back(it->path());
      }
    }
    std::sort(metadataFolders.begin(), metadataFolders.end());
    for (const fs::path& metadata : metadataFolders) {
      std::string text;
      std::string error;
      // distutils (Debian's python3-* packages among them) writes `name.egg-info` as a file:
      // the PKG-INFO itself.
      int readErrno = 0;
      auto read = [&](const fs::path& file) {
        metadataLookedAt_.push_back(file.string());
        if (readWholeFile(metadataLookedAt_.back(), text, error)) return true;
        readErrno = errno;
        return false;
      };
      if (!read(metadata / "METADATA") && !read(metadata / "PKG-INFO") &&
          !(metadata.extension() == ".egg-info" && read(metadata))) {
        // Metadata that is there but cannot be read leaves its modules without a distribution.
        if (readErrno != ENOENT && readErrno != ENOTDIR && readErrno != EISDIR) {
          metadataProblems_.emplace_back(
              metadata.string(), fmt::format("{}: its modules count as of no distribution", error));
        }
        continue;
      }
      auto distribution = std::make_shared<Distribution>();
      distribution->name = headerValue(text, "Name");
      distribution->version = headerValue(text, "Version");
      distribution->metadataFolder = metadata;
      distribution->requirements = requirementNames(text);
      if (distribution->name.empty()) continue;
      std::vector<std::string> tops = topLevelModules(metadata, metadataLookedAt_);
      if (tops.empty()) {
        std::string guess = distribution->name;
        std::replace(guess.begin(), guess.end(), '-', '_');
        tops.push_back(guess);
      }
      for (const std::string& top : tops) entry->second.try_emplace(top, distribution);
    }
  }
  const auto found = entry->second.find(topLevel);
  return found == entry->second.end() ? nullptr : found->second.get();
}

bool ModuleResolver::mayReachTorch(const Distribution& distribution) {
  if (!byNameMade_) {
    byNameMade_ = true;
    for (size_t index = 0; index < searchPaths_.size(); ++index) {
      if (searchPaths_[index].kind != SearchPathKind::Installed) continue;
      distributionOf(index, ""); // reads the folder's metadata
      for (const auto& [top, installed] : distributions_[index]) {
        byName_.try_emplace(normalDistributionName(installed->name), installed.get());
      }
    }
  }
  // Depth first over the requirements, with an explicit stack (no recursion); a distribution
  // met again while open is taken not to reach torch through that path (a cycle adds nothing).
  const std::string start = normalDistributionName(distribution.name);
  if (const auto known = reachesTorch_.find(start); known != reachesTorch_.end()) {
    return known->second;
  }
  struct Open {
    std::string name;
    const Distribution* distribution;
    size_t next = 0;
  };
  std::vector<Open> stack{{start, &distribution}};
  std::unordered_set<std::string> open{start};
  bool found = false;
  while (!stack.empty()) {
    Open& top = stack.back();
    if (top.name.starts_with("torch")) found = true;
    if (found || top.next >= top.distribution->requirements.size()) {
      reachesTorch_[top.name] = found;
      open.erase(top.name);
      stack.pop_back();
      continue;
    }
    const std::string& required = top.distribution->requirements[top.next++];
    if (required.starts_with("torch")) {
      found = true;
      continue;
    }
    if (open.count(required) != 0) continue;
    if (const auto known = reachesTorch_.find(required); known != reachesTorch_.end()) {
      found = known->second;
      continue;
    }
    const auto installed = byName_.find(required);
    if (installed == byName_.end()) continue; // not installed: its code cannot run
    open.insert(required);
    stack.push_back({required, installed->second});
  }
  return reachesTorch_[start];
}

} // namespace gradlint
