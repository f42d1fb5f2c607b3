// The Python environment whose installed packages a check reads (docs/context.md): found from
// --python, VIRTUAL_ENV, CONDA_PREFIX, the .venv or venv folder nearest to the checked paths
// (then to the working folder, then at the project root), or the python3 on PATH, and its
// module search path worked out from files alone (pyvenv.cfg, the site-packages folders, .pth
// path lines) without running any interpreter.
#pragma once

#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace gradlint {

enum class SearchPathKind {
  Project,   // the project's own code: context modules
  Stdlib,    // the interpreter's standard library: resolved, never read
  Installed, // site-packages / dist-packages (and .pth additions): installed modules
};

struct SearchPath {
  std::filesystem::path folder; // absolute, normal
  SearchPathKind kind = SearchPathKind::Installed;
};

struct PythonEnvironment {
  std::filesystem::path prefix; // the environment's folder (sys.prefix)
  std::string foundBy; // "--python", "VIRTUAL_ENV", "`.venv` nearest to the checked path ..."
  std::string version;          // "3.11" when known
  std::vector<SearchPath> searchPaths; // stdlib first, then the installed folders in order
  // What the search path leaves out and why (--show-context prints them): .pth path lines
  // beyond kMaxPthFolders.
  std::vector<std::string> skipped;
};

// The most folders the .pth files of an environment may add to its search path. Each one costs
// a listing per unresolved import, and a real environment has a few (one per editable install);
// a .pth file of thousands of lines would make every run pay for them.
inline constexpr size_t kMaxPthFolders = 256;

struct EnvironmentRequest {
  std::string python; // --python or the config key `python`; empty: look for one
  std::string pythonFrom = "--python"; // what to name in errors
  std::filesystem::path projectRoot;
  // Where a .venv or venv is looked for, each from its folder upward, nearest first: the
  // checked paths in the order named (files or folders), then the working folder. Relative
  // paths are relative to the working folder.
  std::vector<std::filesystem::path> checkedPaths;
  std::filesystem::path workingFolder; // empty: the process's
};

// The environment, or nullopt when none was asked for and none was found. Throws
// EnvironmentError when an environment that was asked for does not exist or is not one.
std::optional<PythonEnvironment> findPythonEnvironment(const EnvironmentRequest& request);

class EnvironmentError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

} // namespace gradlint
