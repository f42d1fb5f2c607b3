// Configuration: `[tool.gradlint]` in pyproject.toml, or the top-level keys of gradlint.toml /
// .gradlint.toml, found by walking up from each checked file (the nearest file wins), or one
// file for every path with --config. Rule selection follows ruff: the command line's --select
// starts a new selection, --extend-select and --ignore add to the file's.
#pragma once

#include <filesystem>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace gradlint {

// A configuration problem; the message names the file, line, column and key.
class ConfigError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

struct PerFileIgnore {
  std::string glob; // relative to the configuration's folder; a leading `!` negates it
  std::vector<std::string> codes;
};

struct Settings {
  std::string configPath;     // the file these came from; "" for the built-in defaults
  std::filesystem::path root; // absolute folder the globs are relative to
  std::optional<std::vector<std::string>> select; // unset: the default rules
  std::vector<std::string> extendSelect;
  std::vector<std::string> ignore;
  std::vector<std::string> exclude;
  std::vector<PerFileIgnore> perFileIgnores;
  bool preview = false; // `ALL` also selects preview rules
  // The offload rules' API tables: qualified names of calls that move a model off the device,
  // and of calls that undo that. Parsed and validated now; read by those rules.
  std::vector<std::string> extraOffloadCalls;
  std::vector<std::string> extraResetCalls;
  // The program around a check (docs/context.md): the Python environment (an interpreter or an
  // environment folder), the project root, and whether context is read at all. Absolute.
  std::optional<std::string> python;
  std::optional<std::string> projectRoot;
  std::optional<bool> context;
  // C++: which headers' function bodies are checked (a regular expression over their paths,
  // like --header-filter); unset: the project's headers.
  std::optional<std::string> headerFilter;
};

// Parses configuration text. `path` is used in messages and decides the shape: a file named
// pyproject.toml is read from its [tool.gradlint] table and gives nullopt when it has none; any
// other name is read from its top level. Throws ConfigError.
std::optional<Settings> parseConfig(std::string_view text, const std::filesystem::path& path);

// Reads and parses a configuration file. Throws ConfigError (unreadable file included).
std::optional<Settings> loadConfig(const std::filesystem::path& path);

// The file names looked for in each folder, strongest first.
inline constexpr std::string_view kConfigFileNames[] = {".gradlint.toml", "gradlint.toml",
                                                        "pyproject.toml"};

// Finds the settings for paths, walking up from each folder and caching what it finds.
class ConfigResolver {
public:
  // With `overridePath`, that file applies to every path (and must exist). Throws ConfigError.
  explicit ConfigResolver(const std::optional<std::string>& overridePath);

  // The settings for a file (need not exist: --stdin-filename) from its folder upwards.
  // Throws ConfigError when a configuration file on the way is broken.
  std::shared_ptr<const Settings> settingsForFile(const std::filesystem::path& file);
  // The same for a path as written (discovery's strings, without building a path of each).
  std::shared_ptr<const Settings> settingsForFile(std::string_view file);
  // The settings that decide whether a folder is excluded: its parent's.
  std::shared_ptr<const Settings> settingsForFolder(const std::filesystem::path& folder);

  // What a folder (absolute, normal) holds, as discovery listed it: resolving goes past a folder
  // that holds none of kConfigFileNames without looking for them.
  void noteFolderListing(const std::string& absoluteFolder, const std::vector<std::string>& names);

private:
  std::shared_ptr<const Settings> settingsInFolder(const std::filesystem::path& folder);

  std::shared_ptr<const Settings> override_;
  std::shared_ptr<const Settings> defaults_;
  std::unordered_map<std::string, std::shared_ptr<const Settings>> byFolder_;
  // The answers by the folder part of the path as given, before making it absolute and normal:
  // discovery asks for every file of a folder in turn.
  std::unordered_map<std::string, std::shared_ptr<const Settings>> byGivenFolder_;
  std::unordered_set<std::string> withoutConfig_; // listed folders that hold no config file
};

struct DiscoveryOptions; // program/discover.h

// Makes a discovery skip what the configurations exclude (a file or folder by the settings
// that govern it: a folder's are its parent's) and tell `configs` each folder it lists.
// `configs` must outlive the discovery.
void excludeByConfigurations(DiscoveryOptions& discovery, ConfigResolver& configs);

// The command line's part of rule selection.
struct CliSelection {
  std::optional<std::vector<std::string>> select; // replaces the file's select and ignores
  std::vector<std::string> extendSelect;
  std::vector<std::string> ignore;
  bool preview = false;
};

// Upper-cases codes, turns rule names (`grad-mode-leak`) into their codes, drops empty ones.
std::vector<std::string> normaliseCodes(const std::vector<std::string>& codes);
// True when `selector` is ALL or a prefix of some rule's code.
bool isKnownSelector(std::string_view selector);

// The codes of the rules to run on `file` (GL000 always included, GL001 unless an ignore
// names it): the defaults, then the file's selection, then the command line's, then the
// per-file ignores that match `file`.
std::vector<std::string> enabledRules(const Settings& settings, const CliSelection& cli,
                                      const std::filesystem::path& file);

// True when `path` (a file or folder) matches one of the settings' exclude globs, by its path
// relative to the configuration's folder or by its name.
bool isExcluded(const Settings& settings, const std::filesystem::path& path);

} // namespace gradlint
