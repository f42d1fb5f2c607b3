// Which toggles may still be in effect at each point of a function: the dataflow fact behind the
// grad-mode leak rules and the interprocedural summaries.
#pragma once

#include "checkers/ir/dataflow.h"
#include "checkers/ir/grad_ir.h"

#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace gradlint::ir {

// A module a function acts on, as its caller names it: argument `argument` (-1: the receiver of a
// method call; `param`: the parameter's name, for keyword arguments) and an attribute path
// below it (".model" for `self.model`, "" for the argument itself).
struct ModuleArgument {
  int32_t argument = 0;
  std::string param;
  std::string path;
  bool operator==(const ModuleArgument&) const = default;
  auto operator<=>(const ModuleArgument&) const = default;
};

// What a call to a function does to its caller's grad mode.
struct FunctionSummary {
  bool mayLeaveDisabled = false; // some return leaves a toggle of its own in effect
  bool mayLeaveInherited = true; // some return leaves the caller's mode as it was
  bool mayLeaveEnabled = false;  // some return leaves grad mode turned on by itself
  bool returnsSavedMode = false; // returns the mode it saved (prev = _enter())
  // Some return leaves the mode the caller passed in these parameters (sorted): the function
  // sets it with `set_grad_enabled(param)`, or hands the parameter to a function that does.
  // A call substitutes its argument: True, False, a saved mode, a parameter of its own.
  std::vector<int> restoresArgs;
  std::vector<std::string> restoresParams; // their names, for keyword arguments
  std::vector<int8_t> restoresDefaults;    // their defaults: 1/0 for True/False, -1 none or other
  int positionalParams = -1; // how many parameters positional arguments fill; -1: all
  // Resets gradients somewhere in its body (a training loop calling it resets too).
  bool resetsGradients = false;
  std::vector<int> offloadsArgs; // parameters it attaches offload hooks to (and leaves on)
  std::vector<std::string> offloadsParams; // their names, for keyword arguments
  // The offload call behind offloadsArgs (through a chain of helpers, the innermost one), for
  // related locations in the caller's report.
  std::string offloadPath;
  SourceRange offloadRange;
  std::string offloadText;
  // Some return hands back an object with offload hooks (an offloaded model, or one loaded with
  // a device map: `return AutoModel.from_pretrained(name, device_map="auto")`), so a caller's
  // `model = load()` is that object. `returnedMayOffload`: only possibly (an automatic map);
  // `returnedDeviceMap`: the hooks are a device_map load's.
  bool returnsOffloaded = false;
  bool returnedMayOffload = false;
  bool returnedDeviceMap = false;
  // Where the returned object got its hooks (through helpers, the innermost), for reports.
  std::string returnedOffloadPath;
  SourceRange returnedOffloadRange;
  std::string returnedOffloadText;
  // The toggle behind mayLeaveDisabled, for related locations in the caller's report.
  std::string togglePath;
  SourceRange toggleRange;
  std::string toggleText;
  std::string toggleOrigin; // the distribution holding the toggle ("name version"), if installed
  // A module's top level (what importing it does), not a function: only imports reach it.
  bool moduleTopLevel = false;
  // When the toggle behind mayLeaveDisabled is an import: the module imported (whose summary
  // says the same, one import further), so a report can name the chain of imports.
  std::string importVia;
  // A module's top level: the installed distribution holding the module ("name version"), if
  // any, so a chain of imports can say where it crosses into another distribution.
  std::string moduleOrigin;
  // Puts back a mode saved outside it: `torch.set_grad_enabled(self.prev)` in an `__exit__` or
  // `__call__`, where `__init__` or `__enter__` saved `self.prev`.
  bool restoresOuterMode = false;
  // A class with grad-mode methods (`__init__`, `__enter__`, `__exit__`, `__call__`): its name's
  // summary is its constructor's, and a call to it saves the caller's mode in the slot its
  // `with` (or decorator use) restores from (contextSlot of the call's first byte).
  bool contextClass = false;
  // A context class whose own `__exit__` (seen and analysed) keeps the mode its `__enter__`
  // left: the end of its `with` block puts nothing back (exitKeepsEnterMode).
  bool exitKeepsMode = false;
  // Used as a decorator (`@f`, or `@f(...)` for a factory), it runs the decorated function in
  // this grad-mode region: `return torch.no_grad()(fn)`, or a wrapper calling `fn` in one.
  DecoratorRegion decoratorRegion;
  // Module mode (checkers/ir/module_mode.h), sorted: the modules it leaves in evaluation mode
  // after an evaluation pass (`model.eval()` then calls under no_grad), those it leaves in
  // training mode on every path (`model.train()`), and those it trains (a backward through
  // their outputs, then an optimizer step) in whatever mode its caller left them.
  std::vector<ModuleArgument> evaluatesArgs;
  std::vector<ModuleArgument> trainModeArgs;
  std::vector<ModuleArgument> trainsArgs;
  // The `eval()` behind evaluatesArgs and the forward behind trainsArgs (through helpers, the
  // innermost), for related locations in the caller's report.
  std::string evalPath;
  SourceRange evalRange;
  std::string trainPath;
  SourceRange trainRange;

  // Whether a call to the function changes anything its caller's analysis sees.
  bool affectsCallers() const {
    return mayLeaveDisabled || !mayLeaveInherited || returnsSavedMode || !restoresArgs.empty() ||
           resetsGradients || !offloadsArgs.empty() || returnsOffloaded || restoresOuterMode ||
           contextClass || decoratorRegion.use != DecoratorUse::None || !evaluatesArgs.empty() ||
           !trainModeArgs.empty() || !trainsArgs.empty();
  }
};

class SummaryTable {
public:
  const FunctionSummary* find(const std::string& qualifiedName) const;
  // The summary a Call event reaches: a function's for a call, a module's for an import
  // (`from m import f` imports m, and m.f when that is a module; it calls nothing).
  const FunctionSummary* findFor(const Event& call) const;
  // Returns true when the stored summary changed.
  bool update(const std::string& qualifiedName, const FunctionSummary& summary);
  void addCallers(const std::string& qualifiedName, int count) { callers_[qualifiedName] += count; }
  int callerCount(const std::string& qualifiedName) const;
  // Call sites of a function in the run: how many, and how many sit in a grad-disabled region.
  void addCallSites(const std::string& qualifiedName, int total, int gradDisabled);
  // True when the function has call sites and all of them run with grad disabled.
  bool calledOnlyWithGradDisabled(const std::string& qualifiedName) const;
  bool empty() const { return summaries_.empty(); }
  const std::unordered_map<std::string, FunctionSummary>& all() const { return summaries_; }

private:
  std::unordered_map<std::string, FunctionSummary> summaries_;
  std::unordered_map<std::string, int> callers_;
  struct CallSites {
    int total = 0;
    int gradDisabled = 0;
  };
  std::unordered_map<std::string, CallSites> callSites_;
};

// A small sorted set of node ids (toggles). Functions hold few toggles, so a vector wins.
using ToggleSet = std::vector<NodeId>;

// A branch outcome that holds on a path: condition `key` tested `holds`.
struct Assumption {
  std::string key;
  bool holds = true;
  bool operator==(const Assumption&) const = default;
};
using Assumptions = std::vector<Assumption>; // sorted by key, one outcome per key
// The intersection of two sorted outcome lists; true when `into` lost an entry.
bool intersectInto(Assumptions& into, const Assumptions& from);
// Whether assigning `var` invalidates `condition` (on `var` itself or one of its attributes).
bool mentions(const Assumption& condition, const std::string& var);

// The grad mode at a point, as the union over the paths reaching it.
struct ModeState {
  bool inherited = true;     // the caller's grad mode may still be in effect
  bool mayBeEnabled = false; // some path turned grad on itself (set_grad_enabled(True), ...)
  // Parameters whose value may be the mode (set_grad_enabled(param)), sorted: the caller's
  // argument decides, as with an inherited mode.
  std::vector<int32_t> fromArgs;
  ToggleSet open;            // toggles whose effect may be in force
  ToggleSet guards;          // disabling regions in force (no_grad blocks): they restore on exit
  // Open toggles made under branch outcomes (`if self.flag:`), sorted by toggle: every path on
  // which the toggle is in force took those branches. Toggles not listed hold unconditionally.
  std::vector<std::pair<NodeId, Assumptions>> openWhen;
};

struct SavedMode : ModeState {
  std::string var;
};

struct GradFact : ModeState {
  std::vector<SavedMode> saved; // sorted by var
  Assumptions assumed;          // branch outcomes that hold on every path here
};

class GradStateAnalysis {
public:
  // `self` is the analysed function's qualified name: a recursive call is not a call to a
  // summarised helper (its effects are the function's own, already on the path).
  // `params`: the analysed function's parameters, so that one handed on to a helper that sets
  // the mode from it makes the mode that parameter's value.
  explicit GradStateAnalysis(const SummaryTable* summaries, std::string self = {},
                             const std::vector<std::string>* params = nullptr)
      : summaries_(summaries), self_(std::move(self)), params_(params) {}
  GradFact entryFact() const { return {}; }
  bool join(GradFact& into, const GradFact& from) const;
  GradFact transfer(NodeId id, const Node& node, const GradFact& in) const;
  // A call to a helper that restores grad mode counts as restoring even if it then raises:
  // otherwise every `finally: _leave(prev)` would look exception-unsafe.
  GradFact exceptionFact(NodeId id, const Node& node, const GradFact& in) const;
  // The summary a Call event resolves to, if any.
  const FunctionSummary* summaryFor(const Event& event) const;
  // The summary of `method` of the class a with-item's EnterGuard/ExitGuard names, if any.
  const FunctionSummary* methodSummary(const Event& event, std::string_view method) const;
  // The region of a decorator use's EnterGuard/ExitGuard, when its decorator's summary has one
  // for the way it is applied; null otherwise.
  const DecoratorRegion* decoratorRegionOf(const Event& event) const;

private:
  void applyCallEffect(GradFact& out, NodeId id, const Event& call,
                       const FunctionSummary& summary, const GradFact& in) const;

  const SummaryTable* summaries_;
  std::string self_;
  const std::vector<std::string>* params_;
};

// The mode a caller decides: its own (inherited) or one of its parameters.
inline bool callerDecides(const ModeState& mode) {
  return mode.inherited || !mode.fromArgs.empty();
}

// What a call passes for the parameter `restoresArgs[k]` of its callee's summary.
struct ModeArgument {
  enum class Kind : uint8_t { Unknown, True, False, Name } kind = Kind::Unknown;
  std::string name;       // Kind::Name: the variable passed
  bool byDefault = false; // omitted: the parameter's default value
};
ModeArgument modeArgument(const Event& event, const FunctionSummary& summary, size_t k);

// A node that starts a toggle: SetGrad that may disable, or a call to a function whose summary
// says it may return with grad disabled.
bool isToggle(const Node& node, const GradStateAnalysis& analysis);

// The node that makes grad certainly off at a point whose fact is `fact`: the disabling toggle
// in force on every path, or the disabling region entered (a with-block, or the synthetic
// enter of a grad-mode decorator). kNoNode when grad may be on there.
NodeId certainlyDisabledBy(const FunctionIR& fn, const ModeState& fact);

// A place where a toggle's effect escapes the function.
struct Leak {
  NodeId toggle = kNoNode;
  NodeId exit = kNoNode; // Return / FallThrough / Yield / Await, or ExceptionalExit
  bool exceptional = false;
};

struct GradStateReport {
  DataflowResult<GradFact> flow;
  // Per toggle: its first leaking normal exit (if any) and its exceptional leak (if any).
  std::vector<Leak> leaks;
};

GradStateReport analyzeGradState(const FunctionIR& fn, const SummaryTable* summaries);

// The shortest path from `toggle` to `exit` along which the toggle stays in effect.
std::vector<NodeId> witnessPath(const FunctionIR& fn, const DataflowResult<GradFact>& flow,
                                NodeId toggle, NodeId exit);

} // namespace gradlint::ir
