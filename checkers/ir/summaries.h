// Interprocedural facts within one run: which functions return with grad disabled, return the
// mode they saved, or set grad mode from a parameter. Computed to a fixpoint over the call graph.
#pragma once

#include "checkers/ir/grad_state.h"

#include <unordered_map>
#include <vector>

namespace gradlint::ir {

// Grad-state analyses of functions, each made with the summaries it depends on as final.
using GradStateReports = std::unordered_map<const FunctionIR*, GradStateReport>;

// Builds the summaries of every addressable function in `modules` and counts the calls to
// each summarised function. With `reports`, fills it with the analyses made along the way that
// hold for the final table (the rules need the same ones); left empty if no fixpoint was reached.
// `known`: summaries from outside the run (summary files of other targets); the run's own
// definitions replace them.
SummaryTable computeSummaries(const std::vector<const ModuleIR*>& modules,
                              GradStateReports* reports = nullptr,
                              const SummaryTable* known = nullptr);

// The summary one function's own analysis implies (without recording it anywhere). `origin`:
// the installed distribution the function comes from (ModuleIR::origin), if any.
FunctionSummary summarize(const FunctionIR& fn, const GradStateReport& report,
                          const SummaryTable& table, const std::string& path,
                          const std::string& origin = {});

// True when `exit` (an analysed `__exit__`/`__aexit__`) leaves grad mode as its `__enter__` left
// it: no toggle or restore of its own, no `super().__exit__()` or other `__exit__` it hands over
// to, and no call to a function that restores or sets the mode.
bool exitKeepsEnterMode(const FunctionIR& exit, const SummaryTable& table);

// True when `fn` can be summarised: a plain function (generators and coroutines do not run
// when called) with a qualified name.
bool isSummarisable(const FunctionIR& fn);

} // namespace gradlint::ir
