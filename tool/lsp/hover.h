// Hover over a code inside `# noqa: ...` shows what that rule finds.
#pragma once

#include "tool/lsp/documents.h"

#include <nlohmann/json.hpp>

namespace gradlint::lsp {

// The Hover result at `position`, or null when it is not on a code in a noqa comment.
nlohmann::json noqaHover(const TextDocument& document, Position position);

} // namespace gradlint::lsp
