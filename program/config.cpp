#include "program/config.h"

#include "checkers/ir/ascii.h"
#include "program/discover.h"
#include "program/engine.h"
#include "rules/rule.h"

#include <fmt/format.h>
#include <toml++/toml.h>

#include <fnmatch.h>

#include <algorithm>
#include <cctype>
#include <fstream>
#include <set>
#include <sstream>
#include <system_error>

namespace fs = std::filesystem;

namespace gradlint {
namespace {

constexpr std::string_view kKnownKeys[] = {
    "select",  "extend-select",       "ignore",           "exclude", "per-file-ignores",
    "preview", "extra-offload-calls", "extra-reset-calls", "python", "project-root", "context",
    "header-filter"};

std::string_view typeName(toml::node_type type) {
  switch (type) {
  case toml::node_type::string: return "a string";
  case toml::node_type::integer: return "an integer";
  case toml::node_type::floating_point: return "a float";
  case toml::node_type::boolean: return "a boolean";
  case toml::node_type::date:
  case toml::node_type::time:
  case toml::node_type::date_time: return "a date or time";
  case toml::node_type::array: return "an array";
  case toml::node_type::table: return "a table";
  case toml::node_type::none: break;
  }
  return "nothing";
}

// Reads one configuration table, turning every problem into a ConfigError that points at the
// offending key or value.
class SettingsReader {
public:
  SettingsReader(const fs::path& path, std::string table)
      : path_(path.string()), table_(std::move(table)) {}

  [[noreturn]] void fail(const toml::source_region& where, std::string_view message) const {
    throw ConfigError(
        fmt::format("{}:{}:{}: {}", path_, where.begin.line, where.begin.column, message));
  }

  std::string keyName(std::string_view key) const {
    return table_.empty() ? std::string(key) : fmt::format("{}.{}", table_, key);
  }

  std::vector<std::string> strings(const toml::key& key, const toml::node& value) const {
    const toml::array* array = value.as_array();
    if (array == nullptr) {
      fail(value.source(), fmt::format("`{}` must be an array of strings, not {}",
                                       keyName(key.str()), typeName(value.type())));
    }
    std::vector<std::string> out;
    for (const toml::node& element : *array) {
      const auto* text = element.as_string();
      if (text == nullptr) {
        fail(element.source(), fmt::format("`{}` must be an array of strings, but holds {}",
                                           keyName(key.str()), typeName(element.type())));
      }
      out.push_back(text->get());
    }
    return out;
  }

  // A path, relative to the configuration's folder.
  fs::path path(const toml::key& key, const toml::node& value, const fs::path& root) const {
    const auto* text = value.as_string();
    if (text == nullptr || text->get().empty()) {
      fail(value.source(), fmt::format("`{}` must be a non-empty string (a path), not {}",
                                       keyName(key.str()), typeName(value.type())));
    }
    const fs::path given = text->get();
    return given.is_absolute() ? given : (root / given).lexically_normal();
  }

  std::vector<std::string> codes(const toml::key& key, const toml::node& value,
                                 std::string_view what) const {
    std::vector<std::string> out = normaliseCodes(strings(key, value));
    const toml::array& array = *value.as_array();
    for (size_t i = 0; i < out.size() && i < array.size(); ++i) {
      if (!isKnownSelector(out[i])) {
        fail(array[i].source(),
             fmt::format("`{}`: `{}` matches no rule (see `gradlint rule --all`)", what, out[i]));
      }
    }
    return out;
  }

  std::vector<std::string> qualifiedNames(const toml::key& key, const toml::node& value) const {
    std::vector<std::string> out = strings(key, value);
    const toml::array& array = *value.as_array();
    for (size_t i = 0; i < out.size(); ++i) {
      if (!isQualifiedName(out[i])) {
        fail(array[i].source(),
             fmt::format("`{}`: `{}` is not a qualified name such as `mylib.offload.to_cpu`",
                         keyName(key.str()), out[i]));
      }
    }
    return out;
  }

  static bool isQualifiedName(std::string_view name) {
    size_t parts = 0;
    size_t start = 0;
    while (start <= name.size()) {
      size_t dot = name.find('.', start);
      if (dot == std::string_view::npos) dot = name.size();
      const std::string_view part = name.substr(start, dot - start);
      const auto identifierChar = [](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_';
      };
      if (part.empty() || std::isdigit(static_cast<unsigned char>(part.front())) != 0 ||
          !std::all_of(part.begin(), part.end(), identifierChar)) {
        return false;
      }
      ++parts;
      start = dot + 1;
    }
    return parts >= 2;
  }

  Settings read(const toml::table& table, const fs::path& configPath) const {
    Settings settings;
    settings.configPath = configPath.string();
    std::error_code ec;
    settings.root = fs::absolute(configPath, ec).lexically_normal().parent_path();
    for (const auto& [key, value] : table) {
      const std::string_view name = key.str();
      if (name == "select") {
        settings.select = codes(key, value, keyName(name));
      } else if (name == "extend-select") {
        settings.extendSelect = codes(key, value, keyName(name));
      } else if (name == "ignore") {
        settings.ignore = codes(key, value, keyName(name));
      } else if (name == "exclude") {
        settings.exclude = strings(key, value);
      } else if (name == "per-file-ignores") {
        const toml::table* globs = value.as_table();
        if (globs == nullptr) {
          fail(value.source(), fmt::format("`{}` must be a table of glob = [codes], not {}",
                                           keyName(name), typeName(value.type())));
        }
        for (const auto& [glob, globCodes] : *globs) {
          settings.perFileIgnores.push_back(
              {std::string(glob.str()),
               codes(glob, globCodes, fmt::format("{}.\"{}\"", keyName(name), glob.str()))});
        }
      } else if (name == "python") {
        settings.python = path(key, value, settings.root).string();
      } else if (name == "project-root") {
        settings.projectRoot = path(key, value, settings.root).string();
      } else if (name == "context") {
        const auto* flag = value.as_boolean();
        if (flag == nullptr) {
          fail(value.source(), fmt::format("`{}` must be a boolean (true or false), not {}",
                                           keyName(name), typeName(value.type())));
        }
        settings.context = flag->get();
      } else if (name == "header-filter") {
        const auto* filter = value.as_string();
        if (filter == nullptr) {
          fail(value.source(), fmt::format("`{}` must be a string (a regular expression over "
                                           "header paths), not {}",
                                           keyName(name), typeName(value.type())));
        }
        settings.headerFilter = filter->get();
      } else if (name == "preview") {
        const auto* flag = value.as_boolean();
        if (flag == nullptr) {
          fail(value.source(), fmt::format("`{}` must be a boolean (true or false), not {}",
                                           keyName(name), typeName(value.type())));
        }
        settings.preview = flag->get();
      } else if (name == "extra-offload-calls") {
        settings.extraOffloadCalls = qualifiedNames(key, value);
      } else if (name == "extra-reset-calls") {
        settings.extraResetCalls = qualifiedNames(key, value);
      } else {
        std::string known;
        for (std::string_view candidate : kKnownKeys) {
          known += known.empty() ? "" : ", ";
          known += candidate;
        }
        fail(key.source(),
             fmt::format("unknown key `{}` (expected one of: {})", keyName(name), known));
      }
    }
    return settings;
  }

private:
  std::string path_;
  std::string table_; // "tool.gradlint" for pyproject.toml, "" for gradlint.toml
};

bool globMatches(const std::string& glob, const std::string& relative, const std::string& name) {
  std::string pattern = glob;
  while (pattern.size() > 1 && pattern.back() == '/') pattern.pop_back(); // `build/`
  if (pattern.starts_with("./")) pattern = pattern.substr(2);
  if (fnmatch(pattern.c_str(), name.c_str(), 0) == 0) return true;
  if (relative.empty()) return false;
  return fnmatch(pattern.c_str(), relative.c_str(), 0) == 0 ||
         fnmatch(("*/" + pattern).c_str(), relative.c_str(), 0) == 0 ||
         (pattern.starts_with("**/") &&
          fnmatch(pattern.substr(3).c_str(), relative.c_str(), 0) == 0);
}

// The path relative to the configuration's folder ("" when outside it) and its name.
std::pair<std::string, std::string> relativeParts(const Settings& settings, const fs::path& path) {
  std::error_code ec;
  const fs::path absolute = fs::absolute(path, ec).lexically_normal();
  std::string relative;
  if (!settings.root.empty()) {
    const fs::path inside = absolute.lexically_relative(settings.root);
    if (!inside.empty() && *inside.begin() != "..") relative = inside.generic_string();
  }
  return {relative, absolute.filename().string()};
}

std::string readConfigFile(const fs::path& path) {
  std::ifstream stream(path, std::ios::binary);
  if (!stream) {
    throw ConfigError(fmt::format("{}: cannot read the configuration: {}", path.string(),
                                  std::error_code(errno, std::generic_category()).message()));
  }
  std::ostringstream buffer;
  buffer << stream.rdbuf();
  if (stream.bad()) throw ConfigError(fmt::format("{}: read failed", path.string()));
  return std::move(buffer).str();
}

} // namespace

std::vector<std::string> normaliseCodes(const std::vector<std::string>& codes) {
  std::vector<std::string> out;
  for (const std::string& code : codes) {
    if (code.empty()) continue;
    // A rule's name stands for its code, as in `gradlint rule grad-mode-leak`.
    const std::string lower = asciiLower(code);
    const auto& rules = rules::allRules();
    const auto named = std::find_if(rules.begin(), rules.end(), [&](const rules::Rule* rule) {
      return rule->info().name == lower;
    });
    out.push_back(named != rules.end() ? std::string((*named)->info().code) : asciiUpper(code));
  }
  return out;
}

bool isKnownSelector(std::string_view selector) {
  if (selector == "ALL") return true;
  const auto& rules = rules::allRules();
  return std::any_of(rules.begin(), rules.end(), [&](const rules::Rule* rule) {
    return std::string_view(rule->info().code).starts_with(selector);
  });
}

std::optional<Settings> parseConfig(std::string_view text, const fs::path& path) {
  toml::table document;
  try {
    document = toml::parse(text, path.string());
  } catch (const toml::parse_error& error) {
    throw ConfigError(fmt::format("{}:{}:{}: invalid TOML: {}", path.string(),
                                  error.source().begin.line, error.source().begin.column,
                                  error.description()));
  }
  if (path.filename() != "pyproject.toml") {
    return SettingsReader(path, "").read(document, path);
  }
  const toml::node* tool = document.get("tool");
  if (tool == nullptr) return std::nullopt;
  const SettingsReader reader(path, "tool.gradlint");
  if (!tool->is_table()) {
    reader.fail(tool->source(),
                fmt::format("`tool` must be a table, not {}", typeName(tool->type())));
  }
  const toml::node* ours = tool->as_table()->get("gradlint");
  if (ours == nullptr) return std::nullopt;
  if (!ours->is_table()) {
    reader.fail(ours->source(),
                fmt::format("`tool.gradlint` must be a table, not {}", typeName(ours->type())));
  }
  return reader.read(*ours->as_table(), path);
}

std::optional<Settings> loadConfig(const fs::path& path) {
  return parseConfig(readConfigFile(path), path);
}

ConfigResolver::ConfigResolver(const std::optional<std::string>& overridePath) {
  auto defaults = std::make_shared<Settings>();
  std::error_code ec;
  defaults->root = fs::current_path(ec);
  defaults_ = std::move(defaults);
  if (!overridePath) return;
  std::optional<Settings> settings = loadConfig(*overridePath);
  if (!settings) {
    throw ConfigError(fmt::format("{}: has no [tool.gradlint] table", *overridePath));
  }
  override_ = std::make_shared<const Settings>(std::move(*settings));
}

std::shared_ptr<const Settings> ConfigResolver::settingsForFile(const fs::path& file) {
  return settingsForFile(std::string_view(file.native()));
}

std::shared_ptr<const Settings> ConfigResolver::settingsForFile(std::string_view given) {
  if (override_) return override_;
  // Only a plain "folder/name" is looked up as given: `..`, `.` and trailing slashes change
  // what the folder part means.
  const size_t slash = given.rfind('/');
  const std::string_view name = given.substr(slash + 1);
  const bool plain = slash != std::string::npos && slash > 0 && !name.empty() && name != "." &&
                     name != "..";
  std::string folder = plain ? std::string(given.substr(0, slash)) : std::string();
  if (plain) {
    if (auto it = byGivenFolder_.find(folder); it != byGivenFolder_.end()) return it->second;
  }
  std::error_code ec;
  std::shared_ptr<const Settings> settings =
      settingsInFolder(fs::absolute(fs::path(given), ec).lexically_normal().parent_path());
  if (plain) byGivenFolder_.emplace(std::move(folder), settings);
  return settings;
}

std::shared_ptr<const Settings> ConfigResolver::settingsForFolder(const fs::path& folder) {
  return settingsForFile(folder); // a folder is governed by its parent's settings, like a file
}

void ConfigResolver::noteFolderListing(const std::string& absoluteFolder,
                                       const std::vector<std::string>& names) {
  const bool holdsConfig = std::any_of(names.begin(), names.end(), [](const std::string& name) {
    return std::find(std::begin(kConfigFileNames), std::end(kConfigFileNames), name) !=
           std::end(kConfigFileNames);
  });
  if (!holdsConfig) withoutConfig_.insert(absoluteFolder);
}

std::shared_ptr<const Settings> ConfigResolver::settingsInFolder(const fs::path& folder) {
  // Walk up until a folder with a configuration (or one already resolved); every folder passed
  // on the way shares the answer.
  std::vector<std::string> visited;
  std::shared_ptr<const Settings> found;
  for (fs::path at = folder;; at = at.parent_path()) {
    const std::string key = at.string();
    if (auto it = byFolder_.find(key); it != byFolder_.end()) {
      found = it->second;
      break;
    }
    visited.push_back(key);
    const bool mayHoldConfig = !withoutConfig_.contains(key);
    for (std::string_view name : kConfigFileNames) {
      if (!mayHoldConfig) break;
      const fs::path candidate = at / name;
      std::error_code ec;
      if (!fs::is_regular_file(candidate, ec)) continue;
      if (std::optional<Settings> settings = loadConfig(candidate)) {
        found = std::make_shared<const Settings>(std::move(*settings));
        break;
      }
    }
    if (found || at == at.parent_path() || at.empty()) break;
  }
  if (!found) found = defaults_;
  for (const std::string& key : visited) byFolder_[key] = found;
  return found;
}

std::vector<std::string> enabledRules(const Settings& settings, const CliSelection& cli,
                                      const fs::path& file) {
  const bool preview = settings.preview || cli.preview;
  const auto& rules = rules::allRules();
  auto matches = [&](const rules::RuleInfo& info, const std::vector<std::string>& selectors,
                     bool selecting) {
    return std::any_of(selectors.begin(), selectors.end(), [&](const std::string& selector) {
      if (selector == "ALL") return !selecting || !info.preview || preview;
      return std::string_view(info.code).starts_with(selector);
    });
  };
  std::set<std::string_view> enabled;
  for (const rules::Rule* rule : rules) {
    if (!rule->info().preview) enabled.insert(rule->info().code);
  }
  // Each layer: a select starts over, extend-select adds, ignore (which wins within the layer)
  // removes.
  auto apply = [&](const std::optional<std::vector<std::string>>& select,
                   const std::vector<std::string>& extendSelect,
                   const std::vector<std::string>& ignore) {
    if (select) {
      // A select picks the analysis rules: GL001 (a C++ file that does not compile) stays as it
      // was, or a file checked with too few flags would look clean. An ignore turns it off.
      const bool compileErrors = enabled.contains(kCompileErrorCode);
      enabled.clear();
      if (compileErrors) enabled.insert(kCompileErrorCode);
    }
    for (const rules::Rule* rule : rules) {
      const rules::RuleInfo& info = rule->info();
      if ((select && matches(info, *select, true)) || matches(info, extendSelect, true)) {
        enabled.insert(info.code);
      }
      if (matches(info, ignore, false)) enabled.erase(info.code);
    }
  };
  apply(settings.select, settings.extendSelect, settings.ignore);
  apply(cli.select, cli.extendSelect, cli.ignore);

  if (!settings.perFileIgnores.empty()) {
    const auto [relative, name] = relativeParts(settings, file);
    for (const PerFileIgnore& entry : settings.perFileIgnores) {
      const bool negated = entry.glob.starts_with('!');
      const std::string glob = negated ? entry.glob.substr(1) : entry.glob;
      if (globMatches(glob, relative, name) == negated) continue;
      for (const rules::Rule* rule : rules) {
        if (matches(rule->info(), entry.codes, false)) enabled.erase(rule->info().code);
      }
    }
  }
  enabled.insert("GL000"); // like ruff's syntax errors: without it a broken file looks clean
  return {enabled.begin(), enabled.end()};
}

bool isExcluded(const Settings& settings, const fs::path& path) {
  if (settings.exclude.empty()) return false;
  // The configuration's own folder and those above it are never excluded by it: a checkout
  // under /home/build/ is not excluded by `exclude = ["build"]`.
  std::error_code ec;
  const fs::path absolute = fs::absolute(path, ec).lexically_normal();
  const fs::path down = settings.root.lexically_relative(absolute); // from `path` to the root
  const bool atOrAboveRoot =
      !down.empty() &&
      std::none_of(down.begin(), down.end(), [](const fs::path& part) { return part == ".."; });
  if (!settings.root.empty() && atOrAboveRoot) return false;
  const auto [relative, name] = relativeParts(settings, path);
  return std::any_of(settings.exclude.begin(), settings.exclude.end(),
                     [&](const std::string& glob) { return globMatches(glob, relative, name); });
}

void excludeByConfigurations(DiscoveryOptions& discovery, ConfigResolver& configs) {
  discovery.isExcluded = [&configs](const std::string& path) {
    const auto settings = configs.settingsForFile(std::string_view(path));
    return !settings->exclude.empty() && isExcluded(*settings, path);
  };
  discovery.onFolderListed = [&configs](const std::string& folder,
                                        const std::vector<std::string>& names) {
    configs.noteFolderListing(folder, names);
  };
}

} // namespace gradlint
