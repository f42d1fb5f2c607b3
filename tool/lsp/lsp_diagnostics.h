// gradlint findings as LSP Diagnostic objects: UTF-16 ranges, severity, code with its doc page,
// and the witness as relatedInformation (where grad was disabled, the exit that leaks it).
#pragma once

#include "checkers/ir/diagnostic.h"
#include "tool/lsp/documents.h"

#include <nlohmann/json.hpp>

namespace gradlint::lsp {

nlohmann::json toJson(const Range& range);
Range rangeOf(const TextDocument& document, uint32_t startByte, uint32_t endByte);

// `document` holds the text the diagnostic was computed on.
nlohmann::json toLspDiagnostic(const Diagnostic& diagnostic, const TextDocument& document);

} // namespace gradlint::lsp
