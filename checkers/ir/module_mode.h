// Module mode: `train()`/`eval()` switch dropout and batch-norm, and nothing switches them back
// on its own. This analysis follows which modules an evaluation pass left in evaluation mode
// and where such a module is then trained, within a unit and across calls (through
// FunctionSummary's evaluatesArgs, trainModeArgs and trainsArgs).
#pragma once

#include "checkers/ir/grad_state.h"

#include <string>
#include <vector>

namespace gradlint::ir {

// A module trained while an evaluation pass had left it in evaluation mode.
struct TrainingInEvalMode {
  std::string module;      // as this unit names it (`model`, `self.net`)
  NodeId training = kNoNode; // the forward whose outputs are backpropagated, or the helper call
  NodeId evaluation = kNoNode; // the `eval()`, or the call of the helper that evaluated it
};

struct ModuleModeReport {
  std::vector<TrainingInEvalMode> trainings; // in node order, one per module and training node
  // What the unit does to the modules its caller passes in (FunctionSummary's fields).
  std::vector<ModuleArgument> evaluatesArgs;
  std::vector<ModuleArgument> trainModeArgs;
  std::vector<ModuleArgument> trainsArgs;
  NodeId evaluatesAt = kNoNode; // the eval() (or helper call) behind evaluatesArgs
  NodeId trainsAt = kNoNode;    // the forward (or helper call) behind trainsArgs
};

// Whether `fn` has anything the analysis reads: a mode switch, a backward, or a call of a
// function whose summary has module-mode effects.
bool hasModuleModeEvents(const FunctionIR& fn, const SummaryTable& table);

ModuleModeReport analyzeModuleMode(const FunctionIR& fn, const SummaryTable& table);

// Fills summary's module-mode fields from `fn`'s analysis (`path`: fn's file, for locations).
void summarizeModuleMode(const FunctionIR& fn, const SummaryTable& table, const std::string& path,
                         FunctionSummary& summary);

} // namespace gradlint::ir
