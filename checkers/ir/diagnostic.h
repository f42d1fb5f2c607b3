// A finding, independent of the language it came from and of how it is rendered.
#pragma once

#include "checkers/ir/grad_ir.h"

#include <string>
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

struct Diagnostic {
  std::string code; // "GL101"
  std::string message;
  std::string help;
  Severity severity = Severity::Error;
  ir::SourceRange range;
  std::vector<RelatedLocation> related;
  std::vector<WitnessStep> witness;
};

} // namespace gradlint
