#include "program/python_environment.h"

#include "program/read_file.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <string_view>
#include <unordered_set>

#include <dirent.h>

namespace gradlint {
namespace {

namespace fs = std::filesystem;

std::string trim(std::string_view text) {
  const size_t start = text.find_first_not_of(" \t\r");
  if (start == std::string_view::npos) return {};
  const size_t end = text.find_last_not_of(" \t\r");
  return std::string(text.substr(start, end - start + 1));
}

// `3.11` of `3.11.2`, of `python3.11`; empty when there is none.
std::string majorMinor(std::string_view text) {
  const size_t start = text.find_first_of("0123456789");
  if (start == std::string_view::npos) return {};
  const size_t dot = text.find('.', start);
  if (dot == std::string_view::npos || dot + 1 >= text.size() ||
      !std::isdigit(static_cast<unsigned char>(text[dot + 1]))) {
    return {};
  }
  size_t end = dot + 1;
  while (end < text.size() && std::isdigit(static_cast<unsigned char>(text[end]))) ++end;
  return std::string(text.substr(start, end - start));
}

// pyvenv.cfg: `key = value` lines.
struct VenvConfig {
  std::string home;
  bool includeSystemSitePackages = false;
  std::string version;
};

std::optional<VenvConfig> readVenvConfig(const fs::path& prefix) {
  std::string text;
  std::string error;
  const fs::path file = prefix / "pyvenv.cfg";
  if (!isFile(file) || !readWholeFile(file.string(), text, error)) return std::nullopt;
  VenvConfig config;
  for (std::string_view line : Lines(text)) {
    const size_t equals = line.find('=');
    if (equals == std::string_view::npos) continue;
    const std::string key = trim(line.substr(0, equals));
    const std::string value = trim(line.substr(equals + 1));
    if (key == "home") config.home = value;
    if (key == "include-system-site-packages") config.includeSystemSitePackages = value == "true";
    if ((key == "version" || key == "version_info") && config.version.empty()) {
      config.version = majorMinor(value);
    }
  }
  return config;
}

// The pythonX.Y folders under prefix/lib, newest first (or the one `version` names).
std::vector<std::string> libVersions(const fs::path& prefix, const std::string& version) {
  if (!version.empty()) return {version};
  std::vector<std::string> versions;
  std::error_code ec;
  for (fs::directory_iterator it(prefix / "lib", ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name.starts_with("python") && !majorMinor(name).empty()) {
      versions.push_back(majorMinor(name));
    }
  }
  std::sort(versions.begin(), versions.end(), [](const std::string& a, const std::string& b) {
    const size_t da = a.find('.');
    const size_t db = b.find('.');
    return std::stoi(a.substr(da + 1)) > std::stoi(b.substr(db + 1));
  });
  versions.erase(std::unique(versions.begin(), versions.end()), versions.end());
  return versions;
}

struct PathList {
  std::vector<SearchPath> paths;
  std::unordered_set<std::string> seen;

  // Whether `folder` was added: it is a folder not in the list yet.
  bool add(const fs::path& folder, SearchPathKind kind) {
    std::error_code ec;
    fs::path normal = fs::absolute(folder, ec).lexically_normal();
    std::string key = normal.string();
    while (key.size() > 1 && key.back() == '/') key.pop_back();
    if (seen.contains(key) || !isFolder(normal)) return false;
    seen.insert(key);
    paths.push_back({fs::path(key), kind});
    return true;
  }
};

// The folders a .pth file's path lines add (`import` lines run code: never followed), up to
// kMaxPthFolders in all (`added` counts them over every installed folder); the lines beyond
// the limit are counted into `skipped`, per file.
void addPthFolders(const fs::path& site, PathList& list, size_t& added,
                   std::vector<std::string>& skipped) {
  // Every run lists each installed folder (dist-packages holds hundreds of entries): readdir,
  // not a path object per entry.
  std::vector<std::string> files;
  if (DIR* dir = ::opendir(site.c_str())) {
    while (const dirent* entry = ::readdir(dir)) {
      const std::string_view name = entry->d_name;
      if (name.size() > 4 && name.ends_with(".pth")) files.push_back((site / name).string());
    }
    ::closedir(dir);
  }
  std::sort(files.begin(), files.end()); // site.py reads them in name order
  for (const std::string& file : files) {
    std::string text;
    std::string error;
    if (!readWholeFile(file, text, error)) {
      skipped.push_back(fmt::format("{}: {}", file, error));
      continue;
    }
    size_t beyond = 0;
    for (std::string_view raw : Lines(text)) {
      const std::string line = trim(raw);
      if (line.empty() || line[0] == '#' || line.starts_with("import ") ||
          line.starts_with("import\t")) {
        continue;
      }
      if (added >= kMaxPthFolders) {
        ++beyond;
        continue;
      }
      const fs::path folder = fs::path(line).is_absolute() ? fs::path(line) : site / line;
      if (list.add(folder, SearchPathKind::Installed)) ++added;
    }
    if (beyond > 0) {
      skipped.push_back(fmt::format("{}: {} path lines not added: .pth files may add at most {} "
                                    "folders to the search path",
                                    file, beyond, kMaxPthFolders));
    }
  }
}

// The user's site folder for `version` (site.USER_SITE): $PYTHONUSERBASE, else ~/.local, then
// lib/pythonX.Y/site-packages; none when PYTHONNOUSERSITE is set (`python -s`).
std::optional<fs::path> userSite(const std::string& version) {
  const char* noUserSite = std::getenv("PYTHONNOUSERSITE");
  if (noUserSite != nullptr && *noUserSite != '\0') return std::nullopt;
  fs::path base;
  if (const char* userBase = std::getenv("PYTHONUSERBASE"); userBase != nullptr && *userBase) {
    base = userBase;
  } else if (const char* home = std::getenv("HOME"); home != nullptr && *home != '\0') {
    base = fs::path(home) / ".local";
  } else {
    return std::nullopt;
  }
  return base / "lib" / ("python" + version) / "site-packages";
}

// The standard library and installed folders of a base (non-virtual) installation. The user's
// site folder comes before the installation's own, as site.py puts it.
void addBaseFolders(const fs::path& prefix, const std::vector<std::string>& versions,
                    bool stdlib, bool installed, PathList& list) {
  for (const std::string& version : versions) {
    const fs::path lib = prefix / "lib" / ("python" + version);
    if (stdlib) list.add(lib, SearchPathKind::Stdlib);
    if (!installed) continue;
    if (const std::optional<fs::path> user = userSite(version)) {
      list.add(*user, SearchPathKind::Installed);
    }
    list.add(lib / "site-packages", SearchPathKind::Installed);
    // Debian's layout: pip installs into /usr/local, the distribution into /usr/lib/python3.
    const bool system = prefix == "/usr" || prefix == "/usr/local";
    if (system) {
      list.add(fs::path("/usr/local/lib") / ("python" + version) / "dist-packages",
               SearchPathKind::Installed);
    }
    list.add(prefix / "local/lib" / ("python" + version) / "dist-packages",
             SearchPathKind::Installed);
    list.add(prefix / "lib/python3/dist-packages", SearchPathKind::Installed);
    list.add(lib / "dist-packages", SearchPathKind::Installed);
  }
}

bool looksLikePrefix(const fs::path& prefix) {
  if (isFile(prefix / "pyvenv.cfg") || isFolder(prefix / "conda-meta") ||
      isFolder(prefix / "lib/python3/dist-packages")) {
    return true;
  }
  for (const std::string& version : libVersions(prefix, {})) {
    const fs::path lib = prefix / "lib" / ("python" + version);
    if (isFolder(lib / "site-packages") || isFolder(lib / "dist-packages") ||
        isFile(lib / "os.py")) {
      return true;
    }
  }
  return false;
}

PythonEnvironment describePrefix(const fs::path& prefix, std::string version, std::string foundBy) {
  PythonEnvironment environment;
  std::error_code ec;
  environment.prefix = fs::absolute(prefix, ec).lexically_normal();
  environment.foundBy = std::move(foundBy);
  PathList list;
  if (const std::optional<VenvConfig> venv = readVenvConfig(prefix)) {
    if (version.empty()) version = venv->version;
    // `home` is the folder of the base interpreter: its parent is the base prefix.
    const fs::path base = venv->home.empty() ? fs::path() : fs::path(venv->home).parent_path();
    const std::vector<std::string> versions = libVersions(prefix, version);
    if (!base.empty()) addBaseFolders(base, versions, true, false, list);
    for (const std::string& v : versions) {
      list.add(prefix / "lib" / ("python" + v) / "site-packages", SearchPathKind::Installed);
      list.add(prefix / "lib64" / ("python" + v) / "site-packages", SearchPathKind::Installed);
    }
    if (venv->includeSystemSitePackages && !base.empty()) {
      addBaseFolders(base, libVersions(base, version), false, true, list);
    }
  } else {
    addBaseFolders(prefix, libVersions(prefix, version), true, true, list);
  }
  environment.version = version.empty() ? std::string() : version;
  if (environment.version.empty()) {
    const std::vector<std::string> versions = libVersions(prefix, {});
    if (!versions.empty()) environment.version = versions.front();
  }
  // .pth path lines of each installed folder, right after it (as site.addsitedir appends them).
  PathList withPth;
  size_t pthFolders = 0;
  for (const SearchPath& path : list.paths) {
    withPth.add(path.folder, path.kind);
    if (path.kind == SearchPathKind::Installed) {
      addPthFolders(path.folder, withPth, pthFolders, environment.skipped);
    }
  }
  environment.searchPaths = std::move(withPth.paths);
  return environment;
}

// An interpreter (`.venv/bin/python`, `/usr/bin/python3`) or an environment folder.
PythonEnvironment environmentAt(const fs::path& given, const std::string& foundBy,
                                const std::string& name) {
  std::error_code ec;
  if (!fs::exists(given, ec)) {
    throw EnvironmentError(fmt::format("{} `{}`: no such file or folder", name, given.string()));
  }
  if (isFolder(given)) {
    if (!looksLikePrefix(given)) {
      throw EnvironmentError(fmt::format(
          "{} `{}`: not a Python environment (no pyvenv.cfg, conda-meta or "
          "lib/pythonX.Y/site-packages)",
          name, given.string()));
    }
    return describePrefix(given, {}, foundBy);
  }
  const fs::path bin = fs::absolute(given, ec).parent_path();
  if (!given.filename().string().starts_with("python")) {
    throw EnvironmentError(fmt::format(
        "{} `{}`: not a Python interpreter or environment folder", name, given.string()));
  }
  // A virtual environment's interpreter is a link to the base one: the folder it sits in
  // decides, before the link is followed.
  if (isFile(bin.parent_path() / "pyvenv.cfg")) {
    return describePrefix(bin.parent_path(), majorMinor(given.filename().string()), foundBy);
  }
  const fs::path real = fs::canonical(given, ec);
  const fs::path interpreter = ec ? given : real;
  const fs::path prefix = interpreter.parent_path().parent_path();
  if (!looksLikePrefix(prefix)) {
    throw EnvironmentError(fmt::format("{} `{}`: no Python installation around it (looked in {})",
                                       name, given.string(), prefix.string()));
  }
  std::string version = majorMinor(interpreter.filename().string());
  if (version.empty()) version = majorMinor(given.filename().string());
  return describePrefix(prefix, version, foundBy);
}

// pyenv's root: $PYENV_ROOT, else ~/.pyenv.
fs::path pyenvRoot() {
  if (const char* root = std::getenv("PYENV_ROOT"); root != nullptr && *root != '\0') return root;
  if (const char* home = std::getenv("HOME"); home != nullptr && *home != '\0') {
    return fs::path(home) / ".pyenv";
  }
  return {};
}

// The first word of a pyenv version file (`.python-version`, $PYENV_ROOT/version); empty when
// it has none.
std::string versionFileWord(const fs::path& file) {
  std::string text;
  std::string error;
  if (!isFile(file) || !readWholeFile(file.string(), text, error)) return {};
  for (std::string_view line : Lines(text)) {
    const std::string word = trim(line.substr(0, line.find_first_of(" \t#")));
    if (!word.empty()) return word;
  }
  return {};
}

// What a pyenv shim would run, worked out as pyenv does but without running it: the version
// from PYENV_VERSION, else the nearest .python-version at or above `projectRoot` (else the
// working folder), else $PYENV_ROOT/version; its interpreter under $PYENV_ROOT/versions.
// nullopt for the `system` version (the next python3 on PATH decides) or one not installed.
struct PyenvChoice {
  fs::path interpreter;
  std::string why; // "PYENV_VERSION", ".python-version in DIR", "$PYENV_ROOT/version"
};

std::optional<PyenvChoice> pyenvInterpreter(const fs::path& root, const fs::path& projectRoot) {
  std::string version;
  std::string why;
  if (const char* variable = std::getenv("PYENV_VERSION"); variable != nullptr && *variable) {
    version = variable;
    why = "PYENV_VERSION";
  } else {
    std::error_code ec;
    fs::path at = fs::absolute(projectRoot.empty() ? fs::current_path(ec) : projectRoot, ec);
    while (!at.empty()) {
      version = versionFileWord(at / ".python-version");
      if (!version.empty()) {
        why = ".python-version in " + at.string();
        break;
      }
      if (at == at.parent_path()) break;
      at = at.parent_path();
    }
    if (version.empty()) {
      version = versionFileWord(root / "version");
      why = "$PYENV_ROOT/version";
    }
  }
  version = version.substr(0, version.find(':')); // `3.11.7:3.10.13`: the first one
  if (version.empty() || version == "system") return std::nullopt;
  const fs::path prefix = root / "versions" / version;
  for (const char* name : {"python3", "python"}) {
    if (isFile(prefix / "bin" / name)) return PyenvChoice{prefix / "bin" / name, why};
  }
  return std::nullopt;
}

// The python3 on PATH (a pyenv shim stands for the interpreter it would run); `foundBy` says
// which.
std::optional<fs::path> python3OnPath(const fs::path& projectRoot, std::string& foundBy) {
  const char* path = std::getenv("PATH");
  if (path == nullptr) return std::nullopt;
  const fs::path root = pyenvRoot();
  std::error_code ec;
  const fs::path shims = root.empty() ? fs::path() : fs::absolute(root / "shims", ec);
  std::string_view rest(path);
  while (!rest.empty()) {
    const size_t colon = rest.find(':');
    const std::string_view folder = rest.substr(0, colon);
    rest = colon == std::string_view::npos ? std::string_view() : rest.substr(colon + 1);
    if (folder.empty()) continue;
    const fs::path candidate = fs::path(folder) / "python3";
    if (!isFile(candidate)) continue;
    if (!shims.empty() && fs::absolute(folder, ec).lexically_normal() == shims.lexically_normal()) {
      // A shim is a script that asks pyenv: the version it would pick decides, and `system`
      // (or none installed) passes on to the next python3 on PATH.
      if (const std::optional<PyenvChoice> choice = pyenvInterpreter(root, projectRoot)) {
        foundBy = "python3 on PATH (pyenv shim; version from " + choice->why + ")";
        return choice->interpreter;
      }
      continue;
    }
    foundBy = "python3 on PATH";
    return candidate;
  }
  return std::nullopt;
}

// `path` absolute and normal, without a trailing separator (`/a/b/.` is `/a/b`).
fs::path normalFolder(const fs::path& path, const fs::path& working) {
  fs::path normal = (path.is_absolute() ? path : working / path).lexically_normal();
  if (!normal.has_filename() && normal != normal.root_path()) normal = normal.parent_path();
  return normal;
}

// The `.venv` (else `venv`) with a pyvenv.cfg directly in `folder`; empty when there is none.
fs::path virtualEnvironmentIn(const fs::path& folder) {
  for (const char* name : {".venv", "venv"}) {
    if (isFile(folder / name / "pyvenv.cfg")) return folder / name;
  }
  return {};
}

// The virtual environment beside the code, as uv and Poetry find one: the `.venv` or `venv` in
// the folder of a checked path or the nearest folder above it (the paths in the order named),
// then the same from the working folder, then at the project root. A nested project inside an
// enclosing repository (whose `.git` is the project root) keeps its own environment. Each
// folder is looked at once, however many checked paths share it.
std::optional<PythonEnvironment> nearestVirtualEnvironment(const EnvironmentRequest& request) {
  std::error_code ec;
  const fs::path working =
      request.workingFolder.empty() ? fs::current_path(ec) : request.workingFolder;
  const fs::path root =
      request.projectRoot.empty() ? fs::path() : normalFolder(request.projectRoot, working);
  std::unordered_set<std::string> looked;
  auto found = [&](const fs::path& prefix, const std::string& from) {
    const fs::path folder = prefix.parent_path();
    std::string why = fmt::format("`{}` nearest to {}", prefix.filename().string(), from);
    if (!root.empty() && folder == root) {
      why += " (at the project root)";
    } else if (!root.empty()) {
      // Say which environment this one was taken over.
      const fs::path atRoot = virtualEnvironmentIn(root);
      if (!atRoot.empty()) {
        why += fmt::format(", nearer than `{}` at the project root", atRoot.string());
      }
    }
    return describePrefix(prefix, {}, std::move(why));
  };
  auto walk = [&](fs::path at, const std::string& from) -> std::optional<PythonEnvironment> {
    at = normalFolder(at, working);
    if (!isFolder(at)) at = at.parent_path();
    while (!at.empty()) {
      if (!looked.insert(at.string()).second) return std::nullopt; // seen: none above
      if (const fs::path prefix = virtualEnvironmentIn(at); !prefix.empty()) {
        return found(prefix, from);
      }
      if (at == at.parent_path()) break;
      at = at.parent_path();
    }
    return std::nullopt;
  };
  for (const fs::path& path : request.checkedPaths) {
    if (path.empty() || path == "-") continue;
    if (auto environment = walk(path, fmt::format("the checked path `{}`", path.string()))) {
      return environment;
    }
  }
  if (auto environment = walk(working, "the working folder")) return environment;
  if (!root.empty()) {
    if (const fs::path prefix = virtualEnvironmentIn(root); !prefix.empty()) {
      return describePrefix(prefix, {},
                            fmt::format("`{}` at the project root", prefix.filename().string()));
    }
  }
  return std::nullopt;
}

} // namespace

std::optional<PythonEnvironment> findPythonEnvironment(const EnvironmentRequest& request) {
  if (!request.python.empty()) {
    return environmentAt(request.python, request.pythonFrom, request.pythonFrom);
  }
  for (const char* variable : {"VIRTUAL_ENV", "CONDA_PREFIX"}) {
    const char* value = std::getenv(variable);
    if (value == nullptr || *value == '\0' || !isFolder(value) || !looksLikePrefix(value)) continue;
    return describePrefix(value, {}, variable);
  }
  if (std::optional<PythonEnvironment> nearest = nearestVirtualEnvironment(request)) {
    return nearest;
  }
  std::string foundBy;
  if (const std::optional<fs::path> python = python3OnPath(request.projectRoot, foundBy)) {
    try {
      return environmentAt(*python, foundBy, "python3 on PATH");
    } catch (const EnvironmentError&) {
      return std::nullopt; // not one we can read: no environment, as if none were installed
    }
  }
  return std::nullopt;
}

} // namespace gradlint
