// Shared by GL101, GL102 and GL104: which leaks of a unit are worth reporting, and the
// related locations and witness that explain one.
#pragma once

#include "rules/rule.h"

#include <optional>
#include <string>
#include <vector>

namespace gradlint::rules {

// The unit's leaks after the exemptions every leak rule shares: toggles GL105 reports,
// `if __name__ == "__main__":` code, context-manager enter halves, generators made into context
// managers, and private helpers whose callers take over the report.
std::vector<ir::Leak> reportableLeaks(RuleContext& context, size_t unitIndex);

// The `__exit__` (or `__aexit__`) defined beside `enter` when it restores nothing: no toggle,
// restore or call that may restore (`super().__exit__()`). Null when it may restore or is not
// defined in this module (inherited).
const ir::FunctionIR* exitThatKeepsEnterMode(RuleContext& context, const ir::FunctionIR& enter);

// An `__init__` whose class defines (in this module) an `__exit__` or `__aexit__` that may
// restore the mode: `__init__` switches it for that exit, as `torch.set_grad_enabled` does.
bool initIsEnterHalf(RuleContext& context, const ir::FunctionIR& init);

// The start or end of `with C(...):` over a class (not a grad-mode API): what its `__enter__` or
// `__exit__` does.
bool isClassWithEvent(const ir::Event& event);

// A session's top level (a notebook's kernel): a toggle still in effect where a later statement
// trains: runs `backward()` or an optimizer step, or calls a function of the module that does
// with the mode it is called with.
struct SessionLeak {
  ir::NodeId toggle = ir::kNoNode;
  ir::NodeId training = ir::kNoNode; // the first such statement
  std::string what;                  // `backward()`, `step()`, `train()` (which runs ...)
};
std::vector<SessionLeak> sessionLeaks(RuleContext& context, size_t unitIndex);

// How the toggle reads in a message: `torch.set_grad_enabled(False)` or `_enter()`; in C++ as
// written: `at::GradMode::set_enabled(false)`.
std::string describeToggle(const ir::FunctionIR& fn, ir::NodeId toggle,
                           ir::Language language = ir::Language::Python);

// Fills range, related locations and witness of a leak diagnostic; the caller sets the code,
// message and help.
Diagnostic leakDiagnostic(RuleContext& context, size_t unitIndex, const ir::Leak& leak);

// Appends the witness from `toggle` to `target` (the events on a shortest path along which the
// toggle stays in effect) and returns that path.
std::vector<ir::NodeId> addWitness(RuleContext& context, size_t unitIndex, ir::NodeId toggle,
                                   ir::NodeId target, Diagnostic& diagnostic);

// A call that disables grad mode only through a mode parameter of its callee
// (`run_epoch(model, loader, train=False)`, or a default of False left out): that parameter.
struct FalseModeArgument {
  std::string param;
  bool byDefault = false;
};
std::optional<FalseModeArgument> falseModeArgument(const ir::SummaryTable& table,
                                                   const ir::Event& call);

// An import whose module's top level leaves grad mode disabled through imports of its own
// (`pkg/__init__.py` imports `pkg._setup`, which disables it): the modules it goes through, the
// last one being the module whose top level disables it; none when that is the module itself.
// A walk of at most `kMaxImportChain` steps (`cut`: the chain goes on); a cycle ends it too.
inline constexpr size_t kMaxImportChain = 64;
struct ImportChain {
  std::vector<std::string> modules;
  // The installed distribution of the module imported, and of each of `modules` ("" for one
  // of the project): the text names a distribution where the chain enters it.
  std::string importedOrigin;
  std::vector<std::string> origins;
  bool cut = false;
};
ImportChain importChain(const ir::SummaryTable& table, const ir::Event& import);
// "it imports `a`, which imports `b`, whose top level EFFECT": the first few imports, then how
// many more down to the last.
std::string importChainText(const ImportChain& chain, std::string_view effect);
// The fix for an import that leaves grad mode disabled: the mode changes when the import runs,
// so only code around the import itself helps.
inline constexpr std::string_view kImportLeakHelp =
    "import it inside `with torch.enable_grad():` (the block puts the mode back when it ends), "
    "or save `torch.is_grad_enabled()` before the import and restore it right after; wrapping a "
    "later call does not help, since grad mode is already off once the import ran. Report the "
    "import-time toggle to the module's authors";

// The last component of a dotted (or C++ `::`-qualified) name: helpers read better as `_enter`
// than fully qualified.
std::string_view shortName(std::string_view qualified);

// The unit name as users read it in messages: `load`, `Model.load`, `<lambda>`.
std::string displayName(const ir::FunctionIR& fn);

} // namespace gradlint::rules
