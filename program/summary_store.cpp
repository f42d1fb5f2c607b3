#include "program/summary_store.h"

#include "checkers/ir/json_error.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string_view>

namespace gradlint {
namespace {

using nlohmann::ordered_json;

ordered_json rangeToJson(const ir::SourceRange& range) {
  // Lines and columns only: byte offsets would change with every edit above the toggle that
  // keeps its line (a comment's text), and an unchanged summary must keep its bytes so that a
  // build system does not re-check the dependents.
  return {{"start", {range.startLine, range.startColumn}},
          {"end", {range.endLine, range.endColumn}}};
}

// A value of the file that is JSON but not what the format allows.
class FormatError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

// A whole number from 0 to T's largest. nlohmann's get<T>() converts any number with a plain
// cast: a float outside T's range (`1e300`) is undefined behaviour, a negative integer wraps.
template <typename T>
T wholeNumber(const ordered_json& value, std::string_view what) {
  constexpr auto kMax = static_cast<uint64_t>(std::numeric_limits<T>::max());
  if (value.is_number_unsigned() && value.get<uint64_t>() <= kMax) {
    return static_cast<T>(value.get<uint64_t>());
  }
  if (value.is_number_integer() && value.get<int64_t>() >= 0 &&
      static_cast<uint64_t>(value.get<int64_t>()) <= kMax) {
    return static_cast<T>(value.get<int64_t>());
  }
  throw FormatError(
      fmt::format("{} is {}, not a whole number from 0 to {}", what, value.dump(), kMax));
}

// `key`'s list of whole numbers (argument positions); empty when the key is absent.
std::vector<int> wholeNumbers(const ordered_json& item, const char* key) {
  std::vector<int> numbers;
  const auto list = item.find(key);
  if (list == item.end()) return numbers;
  if (!list->is_array()) {
    throw FormatError(fmt::format("`{}` is {}, not a list", key, list->dump()));
  }
  for (const ordered_json& value : *list) {
    numbers.push_back(wholeNumber<int>(value, fmt::format("an element of `{}`", key)));
  }
  return numbers;
}

// `key`'s list of parameter defaults: 1 for True, 0 for False, -1 for none or another value;
// `count` times -1 when the key is absent.
std::vector<int8_t> modeDefaults(const ordered_json& item, const char* key, size_t count) {
  const auto list = item.find(key);
  if (list == item.end()) return std::vector<int8_t>(count, int8_t{-1});
  if (!list->is_array()) {
    throw FormatError(fmt::format("`{}` is {}, not a list", key, list->dump()));
  }
  std::vector<int8_t> defaults;
  for (const ordered_json& value : *list) {
    if (!value.is_number_integer() || value.get<int64_t>() < -1 || value.get<int64_t>() > 1) {
      throw FormatError(
          fmt::format("an element of `{}` is {}, not -1, 0 or 1", key, value.dump()));
    }
    defaults.push_back(static_cast<int8_t>(value.get<int64_t>()));
  }
  return defaults;
}

ir::SourceRange rangeFromJson(const ordered_json& value) {
  auto at = [&](const char* end, size_t index) {
    return wholeNumber<uint32_t>(value.at(end).at(index),
                                 fmt::format("`toggle.range.{}[{}]`", end, index));
  };
  ir::SourceRange range;
  range.startLine = at("start", 0);
  range.startColumn = at("start", 1);
  range.endLine = at("end", 0);
  range.endColumn = at("end", 1);
  // No byte offsets (a consumer that needs them maps lines and columns in the file itself).
  return range;
}

// A summary's `decorator` entry (as summariesToText writes it); false when it is malformed.
// Module-mode targets (FunctionSummary::evaluatesArgs, ...): [{"arg": 1, "param": "model",
// "path": ".net"}], or {"receiver": true, ...} for a method's receiver.
ordered_json moduleArgumentsToJson(const std::vector<ir::ModuleArgument>& targets) {
  ordered_json list = ordered_json::array();
  for (const ir::ModuleArgument& target : targets) {
    ordered_json entry = target.argument < 0 ? ordered_json{{"receiver", true}}
                                             : ordered_json{{"arg", target.argument}};
    if (!target.param.empty()) entry["param"] = target.param;
    if (!target.path.empty()) entry["path"] = target.path;
    list.push_back(std::move(entry));
  }
  return list;
}

std::vector<ir::ModuleArgument> moduleArgumentsFromJson(const ordered_json& item,
                                                        const char* key) {
  std::vector<ir::ModuleArgument> targets;
  const auto found = item.find(key);
  if (found == item.end()) return targets;
  for (const ordered_json& entry : *found) {
    ir::ModuleArgument target;
    target.argument = entry.value("receiver", false)
                          ? -1
                          : wholeNumber<int32_t>(entry.at("arg"), "a module argument's `arg`");
    target.param = entry.value("param", "");
    target.path = entry.value("path", "");
    targets.push_back(std::move(target));
  }
  std::sort(targets.begin(), targets.end());
  return targets;
}

bool readDecoratorRegion(const ordered_json& entry, ir::DecoratorRegion& region) {
  if (!entry.is_object()) return false;
  const std::string use = entry.value("use", "");
  const std::string guard = entry.value("guard", "");
  const std::string mode = entry.value("mode", "");
  region.use = use == "bare"     ? ir::DecoratorUse::Bare
               : use == "called" ? ir::DecoratorUse::Called
                                 : ir::DecoratorUse::None;
  region.guard = ir::GuardKind::Other;
  for (const ir::GuardKind kind : {ir::GuardKind::NoGrad, ir::GuardKind::EnableGrad,
                                   ir::GuardKind::InferenceMode, ir::GuardKind::SetGradEnabled}) {
    if (guard == ir::toString(kind)) region.guard = kind;
  }
  region.mode = ir::GradValue::Unknown;
  for (const ir::GradValue value : {ir::GradValue::Enabled, ir::GradValue::Disabled}) {
    if (mode == ir::toString(value)) region.mode = value;
  }
  const bool modeKnown = mode.empty() || region.mode != ir::GradValue::Unknown;
  return region.use != ir::DecoratorUse::None && region.guard != ir::GuardKind::Other &&
         modeKnown;
}

} // namespace

std::string summariesToText(const ir::SummaryTable& table,
                            const std::function<bool(const std::string& name)>& keep,
                            const std::function<std::string(const std::string& path)>& relative) {
  std::vector<const std::pair<const std::string, ir::FunctionSummary>*> entries;
  for (const auto& entry : table.all()) {
    if (entry.second.affectsCallers() && keep(entry.first)) entries.push_back(&entry);
  }
  std::sort(entries.begin(), entries.end(),
            [](const auto* a, const auto* b) { return a->first < b->first; });
  auto location = [&](const std::string& path, const ir::SourceRange& range) {
    return ordered_json{{"path", relative(path)}, {"range", rangeToJson(range)}};
  };
  ordered_json list = ordered_json::array();
  for (const auto* entry : entries) {
    const ir::FunctionSummary& summary = entry->second;
    // Only what differs from a summary that does nothing, in a fixed order.
    ordered_json item = {{"name", entry->first}};
    if (summary.moduleTopLevel) item["module"] = true;
    if (!summary.moduleOrigin.empty()) item["distribution"] = summary.moduleOrigin;
    if (summary.mayLeaveDisabled) item["leaves_disabled"] = true;
    if (!summary.mayLeaveInherited) item["never_returns_caller_mode"] = true;
    if (summary.returnsSavedMode) item["returns_saved_mode"] = true;
    if (summary.mayLeaveEnabled) item["leaves_enabled"] = true;
    if (!summary.restoresArgs.empty()) {
      item["restores_args"] = summary.restoresArgs;
      item["restores_params"] = summary.restoresParams;
      if (std::any_of(summary.restoresDefaults.begin(), summary.restoresDefaults.end(),
                      [](int8_t value) { return value >= 0; })) {
        item["restores_defaults"] = summary.restoresDefaults;
      }
      if (summary.positionalParams >= 0) item["positional_params"] = summary.positionalParams;
    }
    if (summary.resetsGradients) item["resets_gradients"] = true;
    if (summary.restoresOuterMode) item["restores_outer_mode"] = true;
    if (summary.contextClass) item["context_class"] = true;
    if (summary.exitKeepsMode) item["exit_keeps_mode"] = true;
    if (summary.decoratorRegion.use != ir::DecoratorUse::None) {
      const ir::DecoratorRegion& region = summary.decoratorRegion;
      ordered_json decorator = {
          {"use", region.use == ir::DecoratorUse::Bare ? "bare" : "called"},
          {"guard", std::string(ir::toString(region.guard))}};
      if (region.mode != ir::GradValue::Unknown) {
        decorator["mode"] = std::string(ir::toString(region.mode));
      }
      item["decorator"] = std::move(decorator);
    }
    if (!summary.offloadsArgs.empty()) {
      item["offloads_args"] = summary.offloadsArgs;
      item["offloads_params"] = summary.offloadsParams;
    }
    if (summary.returnsOffloaded) {
      item["returns_offloaded"] = summary.returnedMayOffload  ? "may_offload"
                                  : summary.returnedDeviceMap ? "device_map"
                                                              : "hooks";
    }
    if (!summary.evaluatesArgs.empty()) {
      item["evaluates"] = moduleArgumentsToJson(summary.evaluatesArgs);
      if (!summary.evalPath.empty()) {
        item["evaluation"] = location(summary.evalPath, summary.evalRange);
      }
    }
    if (!summary.trainModeArgs.empty()) {
      item["sets_train_mode"] = moduleArgumentsToJson(summary.trainModeArgs);
    }
    if (!summary.trainsArgs.empty()) {
      item["trains"] = moduleArgumentsToJson(summary.trainsArgs);
      if (!summary.trainPath.empty()) {
        item["training"] = location(summary.trainPath, summary.trainRange);
      }
    }
    if (!summary.togglePath.empty()) {
      ordered_json toggle = {{"path", relative(summary.togglePath)},
                             {"range", rangeToJson(summary.toggleRange)},
                             {"callee", summary.toggleText}};
      if (!summary.toggleOrigin.empty()) toggle["distribution"] = summary.toggleOrigin;
      if (!summary.importVia.empty()) toggle["via"] = summary.importVia;
      item["toggle"] = std::move(toggle);
    }
    list.push_back(std::move(item));
  }
  const ordered_json file = {{"format", "gradlint-summaries"},
                             {"version", kSummaryFormatVersion},
                             {"summaries", std::move(list)}};
  // Names come from files that need not be UTF-8 (installed code is read leniently): an
  // undecodable byte becomes U+FFFD rather than an exception.
  return file.dump(1, ' ', false, ordered_json::error_handler_t::replace) + "\n";
}

bool readSummaries(const std::string& text, ir::SummaryTable& into, std::string& error) {
  try {
    return readSummaries(ordered_json::parse(text), into, error);
  } catch (const nlohmann::json::exception& e) {
    error = "malformed summary file: " + jsonErrorText(e.what());
    return false;
  }
}

bool readSummaries(const nlohmann::ordered_json& file, ir::SummaryTable& into,
                   std::string& error) {
  try {
    if (!file.is_object() || file.value("format", "") != "gradlint-summaries") {
      error = "not a gradlint summary file (no \"format\": \"gradlint-summaries\")";
      return false;
    }
    if (file.value("version", ordered_json()) != kSummaryFormatVersion) {
      error = "summary file version " + file.value("version", ordered_json(0)).dump() +
              ", this gradlint reads version " + std::to_string(kSummaryFormatVersion) +
              " (write it again with this gradlint's `gradlint summarize`)";
      return false;
    }
    for (const ordered_json& item : file.at("summaries")) {
      ir::FunctionSummary summary;
      summary.moduleTopLevel = item.value("module", false);
      summary.moduleOrigin = item.value("distribution", "");
      summary.mayLeaveDisabled = item.value("leaves_disabled", false);
      summary.mayLeaveInherited = !item.value("never_returns_caller_mode", false);
      summary.returnsSavedMode = item.value("returns_saved_mode", false);
      summary.mayLeaveEnabled = item.value("leaves_enabled", false);
      summary.restoresArgs = wholeNumbers(item, "restores_args");
      summary.restoresParams =
          item.value("restores_params", std::vector<std::string>(summary.restoresArgs.size()));
      summary.restoresDefaults =
          modeDefaults(item, "restores_defaults", summary.restoresArgs.size());
      if (const auto positional = item.find("positional_params"); positional != item.end()) {
        summary.positionalParams = wholeNumber<int>(*positional, "`positional_params`");
      }
      if (summary.restoresParams.size() != summary.restoresArgs.size() ||
          summary.restoresDefaults.size() != summary.restoresArgs.size()) {
        error = "`restores_params` or `restores_defaults` differs in length from `restores_args`";
        return false;
      }
      summary.resetsGradients = item.value("resets_gradients", false);
      summary.restoresOuterMode = item.value("restores_outer_mode", false);
      summary.contextClass = item.value("context_class", false);
      summary.exitKeepsMode = item.value("exit_keeps_mode", false);
      if (const auto decorator = item.find("decorator"); decorator != item.end()) {
        if (!readDecoratorRegion(*decorator, summary.decoratorRegion)) {
          error = "`decorator` must have `use` \"bare\" or \"called\", a grad-mode `guard` and "
                  "an optional `mode`";
          return false;
        }
      }
      summary.offloadsArgs = wholeNumbers(item, "offloads_args");
      summary.offloadsParams = item.value("offloads_params", std::vector<std::string>{});
      if (summary.offloadsParams.size() != summary.offloadsArgs.size()) {
        error = "`offloads_params` and `offloads_args` differ in length";
        return false;
      }
      if (const auto returned = item.find("returns_offloaded"); returned != item.end()) {
        const std::string how = returned->get<std::string>();
        if (how != "hooks" && how != "device_map" && how != "may_offload") {
          error = "`returns_offloaded` must be \"hooks\", \"device_map\" or \"may_offload\"";
          return false;
        }
        summary.returnsOffloaded = true;
        summary.returnedMayOffload = how == "may_offload";
        summary.returnedDeviceMap = how != "hooks";
      }
      summary.evaluatesArgs = moduleArgumentsFromJson(item, "evaluates");
      summary.trainModeArgs = moduleArgumentsFromJson(item, "sets_train_mode");
      summary.trainsArgs = moduleArgumentsFromJson(item, "trains");
      auto readLocation = [&](const char* key, std::string& path, ir::SourceRange& range) {
        if (const auto found = item.find(key); found != item.end()) {
          path = found->at("path").get<std::string>();
          range = rangeFromJson(found->at("range"));
        }
      };
      readLocation("evaluation", summary.evalPath, summary.evalRange);
      readLocation("training", summary.trainPath, summary.trainRange);
      if (const auto toggle = item.find("toggle"); toggle != item.end()) {
        summary.togglePath = toggle->at("path").get<std::string>();
        summary.toggleRange = rangeFromJson(toggle->at("range"));
        summary.toggleText = toggle->value("callee", "");
        summary.toggleOrigin = toggle->value("distribution", "");
        summary.importVia = toggle->value("via", "");
      }
      into.update(item.at("name").get<std::string>(), summary);
    }
  } catch (const nlohmann::json::exception& e) {
    error = "malformed summary file: " + jsonErrorText(e.what());
    return false;
  } catch (const FormatError& e) {
    error = std::string("malformed summary file: ") + e.what();
    return false;
  }
  return true;
}

} // namespace gradlint
