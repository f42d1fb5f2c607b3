// A finding, independent of the language it came from and of how it is rendered.
#pragma once

#include "checkers/ir/grad_ir.h"

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace gradlint {

enum class Severity : uint8_t { Error, Warning, Info };

std::string_view toString(Severity severity);

// A secondary location: where grad was disabled, the exit that leaks it, ...
struct RelatedLocation {
  std::string path; // empty: the diagnostic's own file
  ir::SourceRange range;
  std::string message;
};

// One step of the path that proves a finding (the witness).
struct WitnessStep {
  ir::EventKind kind;
  ir::SourceRange range;
  std::string detail;
};

// A text replacement in the diagnostic's file, by byte offsets.
struct Edit {
  uint32_t startByte = 0;
  uint32_t endByte = 0;
  std::string replacement;
};

// Safe fixes keep the program's meaning apart from the bug; unsafe ones may change more and are
// applied only with --unsafe-fixes.
enum class Applicability : uint8_t { Safe, Unsafe };

struct Fix {
  std::string message; // "Call `torch.no_grad()`"
  Applicability applicability = Applicability::Safe;
  std::vector<Edit> edits; // non-overlapping
};

struct Diagnostic {
  std::string code; // "GL101"
  std::string message;
  std::string help;
  Severity severity = Severity::Error;
  ir::SourceRange range;
  std::vector<RelatedLocation> related;
  std::vector<WitnessStep> witness;
  std::optional<Fix> fix;
  // Runtime verdicts from `gradlint check --confirm` (tool/probe): device -> "confirmed",
  // "refuted", "needs-cuda", ... Empty unless confirmed.
  std::vector<std::pair<std::string, std::string>> confirmation;
};

} // namespace gradlint
