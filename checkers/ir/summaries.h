// Interprocedural facts within one run: which functions return with grad disabled, return the
// mode they saved, or set grad mode from a parameter. Computed to a fixpoint over the call graph.
#pragma once

#include "checkers/ir/grad_state.h"

#include <string_view>
#include <unordered_map>
#include <vector>

namespace gradlint::ir {

// Grad-state analyses of functions, each made with the summaries it depends on as final.
using GradStateReports = std::unordered_map<const FunctionIR*, GradStateReport>;

// What summarisation reads of a unit it does not analyse, for a caller that dropped the unit's
// nodes to save memory (program/engine.cpp): the kinds of its events and its calls.
struct UnitDigest {
  struct Call {
    InternedString callee; // outlives the unit's nodes, as the pool does
    EventKind kind = EventKind::Call; // Call, EnterGuard or ExitGuard
    bool importsModule = false;
    bool regionDisablesGrad = false;
  };
  uint64_t kinds = 0;      // bit k: some event of EventKind k
  std::vector<Call> calls; // the events above with a callee, in node order
  bool handsOverExit = false; // a call spelled with `__exit__` or `super(` (exitKeepsEnterMode)
  bool has(EventKind kind) const { return (kinds >> static_cast<unsigned>(kind) & 1U) != 0; }
};

// `fn`'s digest; it may outlive `fn` (its callees view the process-wide pool of names).
UnitDigest digestUnit(const FunctionIR& fn);

// Units whose nodes the caller dropped, and how to get them back whole.
class DroppedUnits {
public:
  virtual ~DroppedUnits() = default;
  // Null when `fn` (a unit of `module`) has its nodes.
  virtual const UnitDigest* digest(const ModuleIR& module, const FunctionIR& fn) const = 0;
  // `fn` with its nodes, valid until the run's rules are done; null when it cannot be had again
  // (its file changed on disk since: the run reports that file as changed).
  virtual const FunctionIR* whole(const ModuleIR& module, const FunctionIR& fn) = 0;
};

// Builds the summaries of every addressable function in `modules` and counts the calls to
// each summarised function. With `reports`, fills it with the analyses made along the way that
// hold for the final table (the rules need the same ones); left empty if no fixpoint was reached.
// `known`: summaries from outside the run (summary files of other targets); the run's own
// definitions replace them.
// `dropped`: which units of `modules` come as digests; the reports are keyed by the whole units.
SummaryTable computeSummaries(const std::vector<const ModuleIR*>& modules,
                              GradStateReports* reports = nullptr,
                              const SummaryTable* known = nullptr,
                              DroppedUnits* dropped = nullptr);

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
