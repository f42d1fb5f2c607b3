// Summary files (docs/context.md#summary-files): the interprocedural summaries of a set of
// modules, written by `gradlint summarize -o FILE` and read by `gradlint check --summaries
// FILE`, so a build system can pass them between targets. JSON, versioned, deterministic:
// entries sorted by name, paths relative, no timestamps.
#pragma once

#include "checkers/ir/grad_state.h"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gradlint {

// 2: mode parameters (`restores_args` with `restores_params`, `restores_defaults` and
// `positional_params`: some return leaves the mode that parameter holds), `leaves_enabled`, and
// the import a toggle is reached through (`toggle.via`).
inline constexpr int kSummaryFormatVersion = 2;

// The file's text for the summaries `keep` accepts (by name), every path made relative with
// `relative`.
std::string summariesToText(const ir::SummaryTable& table,
                            const std::function<bool(const std::string& name)>& keep,
                            const std::function<std::string(const std::string& path)>& relative);

// Adds the summaries of one file's text to `into` (a later file's entry for a name replaces an
// earlier one). Returns false with `error` for text that is not a summary file of this version.
bool readSummaries(const std::string& text, ir::SummaryTable& into, std::string& error);
// The same for a file's JSON already parsed (a cache entry holding one).
bool readSummaries(const nlohmann::ordered_json& file, ir::SummaryTable& into,
                   std::string& error);

// The module that owns a summary: the longest name `isModule` accepts that prefixes `name` up
// to a dot (`pkg.helpers.Cls.__init__` belongs to `pkg.helpers`, not to the package `pkg`).
template <typename IsModule>
std::optional<std::string_view> owningModule(std::string_view name, IsModule&& isModule) {
  size_t end = name.size();
  while (end > 0) {
    const std::string_view prefix = name.substr(0, end);
    if (isModule(prefix)) return prefix;
    end = name.rfind('.', end - 1);
    if (end == std::string_view::npos) break;
  }
  return std::nullopt;
}

} // namespace gradlint
