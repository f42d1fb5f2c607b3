// What lowering a buffer left for the next lowering of the same buffer (an editor's): the IR of
// each top-level function and of each method of a top-level class, keyed by its text, and the
// module-wide (and class-wide) facts that IR depends on. A definition whose text is unchanged is
// not lowered again while those facts hold.
#pragma once

#include "checkers/ir/grad_ir.h"

#include <cstdint>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

namespace gradlint::python {

// One definition's share of a lowering. Positions are relative to the definition:
// bytes from its first byte, lines from its first line (columns are unchanged by a shift).
struct LoweredDefinition {
  std::vector<ir::FunctionIR> units;
  // What it adds to module scope, in order: the name it defines and any names its imports bind.
  std::vector<std::pair<std::string, std::string>> bindings;
  std::vector<std::pair<uint32_t, std::string>> suppressionComments; // (line, comment text)
  std::vector<std::string> optimizerNames; // targets it assigns a torch.optim constructor to
  std::vector<std::string> classSavedAttrs; // a method's `self.X = torch.is_grad_enabled()`
};

struct LoweringMemo {
  // The context every kept definition was lowered in; a definition is reused only when the new
  // lowering arrives at the same one.
  std::string moduleName;
  bool isPackageInit = false;
  std::unordered_map<std::string, std::string> bindings;   // module scope, after every import
  std::unordered_set<std::string> optimizerNames;          // module-wide
  std::unordered_map<std::string, std::string> trainerBases; // module-wide: trainer subclasses
  std::unordered_set<std::string> moduleSavedVars;         // saves of grad mode at top level
  // What the methods of a top-level class depend on in it (by the class's qualified name).
  struct ClassFacts {
    std::unordered_set<std::string> savedAttrs; // `self.X` saves of grad mode in any method
    std::unordered_set<std::string> savedVars;  // saves in the class body itself
    bool operator==(const ClassFacts&) const = default;
  };
  std::unordered_map<std::string, ClassFacts> classes;
  // Top-level functions, and methods of top-level classes, by text and parsed ranges (a method's
  // key starts with its class's qualified name and name).
  std::unordered_map<std::string, LoweredDefinition> definitions;
};

} // namespace gradlint::python
