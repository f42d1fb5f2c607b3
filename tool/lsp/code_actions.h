// Code actions for gradlint findings: "Disable GLxxx for this line" (adds or extends `# noqa`),
// the rule's own quick fix, and `source.fixAll.gradlint` (every safe fix, as `check --fix`).
#pragma once

#include "checkers/ir/diagnostic.h"
#include "tool/lsp/documents.h"

#include <nlohmann/json.hpp>

#include <string_view>
#include <vector>

namespace gradlint::lsp {

inline constexpr std::string_view kFixAllKind = "source.fixAll.gradlint";

// The actions for the lines of `range`. `diagnostics` were computed on `document`'s text;
// `only` is the request's context.only (empty: every kind).
nlohmann::json codeActions(const TextDocument& document, const std::vector<Diagnostic>& diagnostics,
                           const Range& range, const std::vector<std::string>& only);

// Edits that turn `before` into `after` as one replacement of the part that differs.
nlohmann::json minimalEdit(const TextDocument& before, const std::string& after);

// True when an action of `kind` is wanted by a request whose context.only is `only`.
bool kindRequested(std::string_view kind, const std::vector<std::string>& only);

} // namespace gradlint::lsp
