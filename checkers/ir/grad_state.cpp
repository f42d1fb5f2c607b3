#include "checkers/ir/grad_state.h"

#include "checkers/ir/attribute_paths.h"

#include <algorithm>
#include <deque>
#include <tuple>

namespace gradlint::ir {

const FunctionSummary* SummaryTable::find(const std::string& qualifiedName) const {
  auto it = summaries_.find(qualifiedName);
  return it == summaries_.end() ? nullptr : &it->second;
}

const FunctionSummary* SummaryTable::findFor(const Event& call) const {
  if (call.kind != EventKind::Call || call.callee.empty()) return nullptr;
  const FunctionSummary* summary = find(call.callee);
  return summary != nullptr && summary->moduleTopLevel == call.importsModule ? summary : nullptr;
}

bool SummaryTable::update(const std::string& qualifiedName, const FunctionSummary& summary) {
  auto [it, inserted] = summaries_.try_emplace(qualifiedName, summary);
  if (inserted) return true;
  FunctionSummary& old = it->second;
  const bool changed = old.mayLeaveDisabled != summary.mayLeaveDisabled ||
                       old.mayLeaveInherited != summary.mayLeaveInherited ||
                       old.mayLeaveEnabled != summary.mayLeaveEnabled ||
                       old.returnsSavedMode != summary.returnsSavedMode ||
                       old.restoresArgs != summary.restoresArgs ||
                       old.restoresDefaults != summary.restoresDefaults ||
                       old.positionalParams != summary.positionalParams ||
                       old.resetsGradients != summary.resetsGradients ||
                       old.offloadsArgs != summary.offloadsArgs ||
                       old.restoresOuterMode != summary.restoresOuterMode ||
                       old.contextClass != summary.contextClass ||
                       old.exitKeepsMode != summary.exitKeepsMode ||
                       old.decoratorRegion != summary.decoratorRegion ||
                       old.evaluatesArgs != summary.evaluatesArgs ||
                       old.trainModeArgs != summary.trainModeArgs ||
                       old.trainsArgs != summary.trainsArgs;
  old = summary;
  return changed;
}

void SummaryTable::addCallSites(const std::string& qualifiedName, int total, int gradDisabled) {
  CallSites& sites = callSites_[qualifiedName];
  sites.total += total;
  sites.gradDisabled += gradDisabled;
}

bool SummaryTable::calledOnlyWithGradDisabled(const std::string& qualifiedName) const {
  auto it = callSites_.find(qualifiedName);
  return it != callSites_.end() && it->second.total > 0 &&
         it->second.total == it->second.gradDisabled;
}

int SummaryTable::callerCount(const std::string& qualifiedName) const {
  auto it = callers_.find(qualifiedName);
  return it == callers_.end() ? 0 : it->second;
}

// The intersection of two sorted outcome lists; true when `into` lost an entry.
bool intersectInto(Assumptions& into, const Assumptions& from) {
  const size_t before = into.size();
  std::erase_if(into, [&](const Assumption& a) {
    return std::find(from.begin(), from.end(), a) == from.end();
  });
  return into.size() != before;
}

// `var` is assigned: what was known of conditions on it (and its attributes) no longer holds.
bool mentions(const Assumption& condition, const std::string& var) {
  return isPathUnder(condition.key, var);
}

namespace {

template <typename Set> bool unionInto(Set& into, const Set& from) {
  if (from.empty()) return false;
  Set merged;
  merged.reserve(into.size() + from.size());
  std::set_union(into.begin(), into.end(), from.begin(), from.end(), std::back_inserter(merged));
  if (merged.size() == into.size()) return false;
  into = std::move(merged);
  return true;
}

template <typename Vector> auto findSaved(Vector& saved, const std::string& var) {
  auto it = std::lower_bound(saved.begin(), saved.end(), var,
                             [](const SavedMode& s, const std::string& v) { return s.var < v; });
  return it != saved.end() && it->var == var ? &*it : nullptr;
}

void storeSaved(GradFact& fact, const std::string& var, const ModeState& mode) {
  if (SavedMode* existing = findSaved(fact.saved, var)) {
    static_cast<ModeState&>(*existing) = mode;
    return;
  }
  auto it = std::lower_bound(fact.saved.begin(), fact.saved.end(), var,
                             [](const SavedMode& s, const std::string& v) { return s.var < v; });
  SavedMode saved;
  static_cast<ModeState&>(saved) = mode;
  saved.var = var;
  fact.saved.insert(it, std::move(saved));
}

// Grad mode becomes whatever `var` saved; a variable never saved on this path is taken to hold
// the caller's mode, which is what every save at function entry holds.
void restoreFrom(GradFact& fact, const std::string& var) {
  if (const SavedMode* saved = findSaved(fact.saved, var)) {
    static_cast<ModeState&>(fact) = static_cast<const ModeState&>(*saved);
  } else {
    static_cast<ModeState&>(fact) = ModeState{};
  }
}

// Grad mode is set by this function itself to a known or unknown value.
void setMode(ModeState& mode, bool enabled) {
  mode.inherited = false;
  mode.mayBeEnabled = enabled;
  mode.fromArgs.clear();
  mode.open.clear();
  mode.guards.clear();
  mode.openWhen.clear();
}

const Assumptions* conditionsOf(const ModeState& mode, NodeId toggle) {
  auto it = std::lower_bound(mode.openWhen.begin(), mode.openWhen.end(), toggle,
                             [](const auto& entry, NodeId id) { return entry.first < id; });
  return it != mode.openWhen.end() && it->first == toggle ? &it->second : nullptr;
}

// `toggle` comes into force under the branch outcomes `assumed`; when it was in force already
// (a loop), it is unconditional except for the outcomes both activations share.
void openToggle(ModeState& mode, NodeId toggle, const Assumptions& assumed) {
  auto it = std::lower_bound(mode.open.begin(), mode.open.end(), toggle);
  const bool wasOpen = it != mode.open.end() && *it == toggle;
  if (!wasOpen) mode.open.insert(it, toggle);
  auto when = std::lower_bound(mode.openWhen.begin(), mode.openWhen.end(), toggle,
                               [](const auto& entry, NodeId id) { return entry.first < id; });
  const bool listed = when != mode.openWhen.end() && when->first == toggle;
  if (wasOpen) {
    if (!listed) return;
    std::erase_if(when->second, [&](const Assumption& a) {
      return std::find(assumed.begin(), assumed.end(), a) == assumed.end();
    });
    if (when->second.empty()) mode.openWhen.erase(when);
    return;
  }
  if (listed) when->second = assumed; // stale entry of a toggle no longer open
  else if (!assumed.empty()) mode.openWhen.insert(when, {toggle, assumed});
  if (listed && assumed.empty()) mode.openWhen.erase(when);
}

bool joinMode(ModeState& into, const ModeState& from) {
  // A toggle's conditions are those of every path on which it is open: intersect where both
  // sides hold it, take the other side's where only it does.
  std::vector<std::pair<NodeId, Assumptions>> when;
  bool changed = false;
  auto holds = [](const ToggleSet& set, NodeId id) {
    return std::binary_search(set.begin(), set.end(), id);
  };
  for (NodeId toggle : from.open) {
    const Assumptions* theirs = conditionsOf(from, toggle);
    if (!holds(into.open, toggle)) {
      if (theirs != nullptr) when.emplace_back(toggle, *theirs);
      continue;
    }
    const Assumptions* mine = conditionsOf(into, toggle);
    if (mine == nullptr) continue;
    Assumptions kept = *mine;
    if (theirs == nullptr) kept.clear();
    else intersectInto(kept, *theirs);
    changed |= kept.size() != mine->size();
    if (!kept.empty()) when.emplace_back(toggle, std::move(kept));
  }
  for (const auto& entry : into.openWhen) {
    if (!holds(from.open, entry.first)) when.push_back(entry);
  }
  std::sort(when.begin(), when.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  changed |= unionInto(into.open, from.open);
  changed |= unionInto(into.guards, from.guards);
  changed |= unionInto(into.fromArgs, from.fromArgs);
  into.openWhen = std::move(when);
  if (from.inherited && !into.inherited) into.inherited = changed = true;
  if (from.mayBeEnabled && !into.mayBeEnabled) into.mayBeEnabled = changed = true;
  return changed;
}

// The path took a branch: toggles that hold only under the opposite outcome are not in force
// on it.
void assume(ModeState& mode, const Assumption& outcome) {
  if (mode.openWhen.empty()) return;
  std::vector<NodeId> infeasible;
  for (const auto& [toggle, conditions] : mode.openWhen) {
    for (const Assumption& condition : conditions) {
      if (condition.key == outcome.key && condition.holds != outcome.holds) {
        infeasible.push_back(toggle);
      }
    }
  }
  for (NodeId toggle : infeasible) {
    mode.open.erase(std::lower_bound(mode.open.begin(), mode.open.end(), toggle));
  }
  std::erase_if(mode.openWhen, [&](const auto& entry) {
    return std::find(infeasible.begin(), infeasible.end(), entry.first) != infeasible.end();
  });
}

void forget(ModeState& mode, const std::string& var) {
  for (auto& entry : mode.openWhen) {
    std::erase_if(entry.second, [&](const Assumption& a) { return mentions(a, var); });
  }
  std::erase_if(mode.openWhen, [](const auto& entry) { return entry.second.empty(); });
}

// What returning from a call with this summary does to the caller's mode (its arguments aside).
void applyReturnEffect(GradFact& out, NodeId id, const FunctionSummary& summary,
                       const GradFact& in) {
  if (!summary.mayLeaveInherited) setMode(out, !summary.mayLeaveDisabled);
  if (summary.mayLeaveDisabled) openToggle(out, id, in.assumed);
}

// Grad mode is the value of the analysed function's parameter `index`.
ModeState modeOfParam(int32_t index) {
  ModeState mode;
  mode.inherited = false;
  mode.fromArgs.push_back(index);
  return mode;
}

// True when some mode parameter of the call's callee gets the argument False.
bool passesFalse(const Event& call, const FunctionSummary& summary) {
  for (size_t k = 0; k < summary.restoresArgs.size(); ++k) {
    if (modeArgument(call, summary, k).kind == ModeArgument::Kind::False) return true;
  }
  return false;
}

} // namespace

ModeArgument modeArgument(const Event& event, const FunctionSummary& summary, size_t k) {
  using Kind = ModeArgument::Kind;
  const CallArguments& call = event.call();
  ModeArgument argument;
  if (k >= summary.restoresArgs.size()) return argument;
  const int index = summary.restoresArgs[k];
  const auto at = static_cast<size_t>(index);
  const bool positional = summary.positionalParams < 0 || index < summary.positionalParams;
  if (positional && at < call.argBools.size()) {
    if (call.argBools[at] == 1) argument.kind = Kind::True;
    else if (call.argBools[at] == 0) argument.kind = Kind::False;
    else if (at < call.argVars.size() && !call.argVars[at].empty()) {
      argument.kind = Kind::Name;
      argument.name = call.argVars[at];
    }
    return argument;
  }
  const std::string& name = k < summary.restoresParams.size() ? summary.restoresParams[k] : "";
  if (!name.empty()) {
    for (const auto& [keyword, value] : call.keywordBools) {
      if (keyword != name) continue;
      if (value == 1) argument.kind = Kind::True;
      if (value == 0) argument.kind = Kind::False;
      for (const auto& [word, var] : call.keywordVars) {
        if (value >= 0 || word != name) continue;
        argument.kind = Kind::Name;
        argument.name = var;
      }
      return argument;
    }
  }
  // Omitted (positional arguments that stop short of it, no keyword): its default, unless a
  // `*args`/`**kwargs` may pass it. A C++ call's arguments are positional only; no defaults.
  if (call.argsSplat || name.empty()) return argument;
  const int8_t value = k < summary.restoresDefaults.size() ? summary.restoresDefaults[k] : -1;
  argument.byDefault = value >= 0;
  if (value == 1) argument.kind = Kind::True;
  if (value == 0) argument.kind = Kind::False;
  return argument;
}

// What a call does to the caller's mode: the union of what the callee's returns may leave (the
// caller's mode, its own toggle, grad turned on, or a parameter, whose argument decides).
void GradStateAnalysis::applyCallEffect(GradFact& out, NodeId id, const Event& call,
                                        const FunctionSummary& summary,
                                        const GradFact& in) const {
  if (summary.restoresArgs.empty()) {
    applyReturnEffect(out, id, summary, in);
    return;
  }
  std::optional<ModeState> result;
  auto add = [&](const ModeState& mode) {
    if (!result) result = mode;
    else joinMode(*result, mode);
  };
  auto enabled = [] {
    ModeState on;
    setMode(on, true);
    return on;
  };
  auto disabled = [&] {
    ModeState off;
    setMode(off, false);
    openToggle(off, id, in.assumed);
    return off;
  };
  if (summary.mayLeaveInherited) add(in);
  if (summary.mayLeaveEnabled) add(enabled());
  if (summary.mayLeaveDisabled) add(disabled());
  for (size_t k = 0; k < summary.restoresArgs.size(); ++k) {
    const ModeArgument argument = modeArgument(call, summary, k);
    switch (argument.kind) {
    case ModeArgument::Kind::True: add(enabled()); break;
    case ModeArgument::Kind::False: add(disabled()); break;
    case ModeArgument::Kind::Name: {
      // A mode saved here puts that mode back; a parameter of this function passes its value
      // on; anything else is a value this analysis does not know, which it does not report.
      if (const SavedMode* saved = findSaved(in.saved, argument.name)) {
        add(*saved);
        break;
      }
      if (params_ != nullptr) {
        const auto param = std::find(params_->begin(), params_->end(), argument.name);
        if (param != params_->end()) {
          add(modeOfParam(static_cast<int32_t>(param - params_->begin())));
          break;
        }
      }
      add(ModeState{});
      break;
    }
    case ModeArgument::Kind::Unknown: add(ModeState{}); break;
    }
  }
  if (result) static_cast<ModeState&>(out) = std::move(*result);
}

const FunctionSummary* GradStateAnalysis::methodSummary(const Event& event,
                                                        std::string_view method) const {
  if (summaries_ == nullptr || summaries_->empty() || event.callee.empty()) return nullptr;
  const FunctionSummary* owner = summaries_->find(event.callee);
  if (owner == nullptr || !owner->contextClass) return nullptr;
  std::string name = event.callee;
  name += '.';
  name += method;
  return summaries_->find(name);
}

const DecoratorRegion* GradStateAnalysis::decoratorRegionOf(const Event& event) const {
  if (summaries_ == nullptr || summaries_->empty() || event.callee.empty()) return nullptr;
  const FunctionSummary* decorator = summaries_->find(event.callee);
  // `@factory` without the call (or `@decorator()`) hands the function to something else.
  if (decorator == nullptr || decorator->decoratorRegion.use != event.decoratorUse) return nullptr;
  return &decorator->decoratorRegion;
}

bool GradStateAnalysis::join(GradFact& into, const GradFact& from) const {
  bool changed = joinMode(into, from);
  for (const SavedMode& saved : from.saved) {
    if (SavedMode* mine = findSaved(into.saved, saved.var)) {
      changed |= joinMode(*mine, saved);
    } else {
      storeSaved(into, saved.var, saved);
      changed = true;
    }
  }
  changed |= intersectInto(into.assumed, from.assumed);
  return changed;
}

const FunctionSummary* GradStateAnalysis::summaryFor(const Event& event) const {
  if (event.kind != EventKind::Call || summaries_ == nullptr || event.callee.empty() ||
      event.callee == self_) {
    return nullptr;
  }
  return summaries_->findFor(event);
}

GradFact GradStateAnalysis::transfer(NodeId id, const Node& node, const GradFact& in) const {
  const Event& event = node.event;
  switch (event.kind) {
  case EventKind::SetGrad: {
    GradFact out = in;
    setMode(out, event.value == GradValue::Enabled);
    if (event.value != GradValue::Enabled) openToggle(out, id, in.assumed);
    return out;
  }
  case EventKind::SaveGrad: {
    GradFact out = in;
    storeSaved(out, event.var, in);
    return out;
  }
  case EventKind::RestoreGrad: {
    GradFact out = in;
    restoreFrom(out, event.var);
    return out;
  }
  case EventKind::RestoreArg: {
    GradFact out = in;
    static_cast<ModeState&>(out) = event.argIndex >= 0 ? modeOfParam(event.argIndex) : ModeState{};
    return out;
  }
  // A grad-mode with-block (or decorator) saves the mode on entry and puts it back on exit, so
  // a toggle inside `with torch.no_grad():` ends with the block; inside, the block's mode holds.
  case EventKind::EnterGuard: {
    GuardKind guard = event.guard;
    GradValue mode = event.value;
    // A project's own decorator: the region its summary says it wraps the function in.
    if (event.decoratorUse != DecoratorUse::None) {
      const DecoratorRegion* region = decoratorRegionOf(event);
      if (region == nullptr) return in;
      guard = region->guard;
      mode = region->mode;
    } else if (event.guard == GuardKind::Other) {
      // `with C(...):` of a class: what its `__enter__` does.
      const FunctionSummary* enter = methodSummary(event, "__enter__");
      if (enter == nullptr) return in;
      GradFact out = in;
      applyReturnEffect(out, id, *enter, in);
      return out;
    }
    if (event.var.empty()) return in;
    GradFact out = in;
    storeSaved(out, event.var, in);
    bool disables = false;
    switch (guard) {
    case GuardKind::NoGrad: setMode(out, false); disables = true; break;
    case GuardKind::EnableGrad: setMode(out, true); break;
    // inference_mode(False) leaves grad mode alone.
    case GuardKind::InferenceMode:
      if (mode != GradValue::Disabled) setMode(out, false);
      disables = mode != GradValue::Disabled;
      break;
    // set_grad_enabled(flag): either mode.
    case GuardKind::SetGradEnabled:
      setMode(out, mode != GradValue::Disabled);
      disables = mode == GradValue::Disabled;
      break;
    case GuardKind::Other: break;
    }
    if (disables) out.guards.push_back(id);
    return out;
  }
  case EventKind::ExitGuard: {
    if (event.decoratorUse != DecoratorUse::None) {
      if (event.var.empty() || decoratorRegionOf(event) == nullptr) return in;
      GradFact out = in;
      restoreFrom(out, event.var);
      return out;
    }
    // The end of `with C(...):`: an `__exit__` that restores (or one inherited, not seen) puts
    // back the mode saved when the object was made; one that only toggles does that.
    if (event.guard == GuardKind::Other) {
      if (summaries_ == nullptr || event.var.empty()) return in;
      const FunctionSummary* owner = summaries_->find(event.callee);
      if (owner == nullptr || !owner->contextClass) return in;
      const FunctionSummary* exit = methodSummary(event, "__exit__");
      GradFact out = in;
      if (exit != nullptr && !exit->restoresOuterMode) applyReturnEffect(out, id, *exit, in);
      else if (exit == nullptr && owner->exitKeepsMode) return in; // what `__enter__` left
      else restoreFrom(out, event.var);
      return out;
    }
    if (event.var.empty()) return in;
    GradFact out = in;
    restoreFrom(out, event.var);
    return out;
  }
  case EventKind::Assume: {
    GradFact out = in;
    const Assumption outcome{event.var, event.value == GradValue::Enabled};
    assume(out, outcome);
    for (SavedMode& saved : out.saved) assume(saved, outcome);
    auto it = std::lower_bound(out.assumed.begin(), out.assumed.end(), outcome.key,
                               [](const Assumption& a, const std::string& k) { return a.key < k; });
    if (it != out.assumed.end() && it->key == outcome.key) it->holds = outcome.holds;
    else out.assumed.insert(it, outcome);
    return out;
  }
  case EventKind::Assign: {
    const auto mentioned = [&](const Assumption& a) { return mentions(a, event.var); };
    if (event.var.empty() || (std::none_of(in.assumed.begin(), in.assumed.end(), mentioned) &&
                              in.openWhen.empty() && in.saved.empty())) {
      return in;
    }
    GradFact out = in;
    std::erase_if(out.assumed, mentioned);
    forget(out, event.var);
    for (SavedMode& saved : out.saved) forget(saved, event.var);
    return out;
  }
  case EventKind::Call: {
    const FunctionSummary* summary = summaryFor(event);
    if (summary == nullptr) return in;
    GradFact out = in;
    // Making a context object: the mode its `with` block or decorator use puts back.
    if (summary->contextClass) storeSaved(out, contextSlot(event.range.startByte), in);
    // `__call__` of a decorator use (`@C(False)`), a restoring helper: the mode saved for it.
    if (summary->restoresOuterMode) {
      restoreFrom(out, contextSlot(event.range.startByte));
      if (summary->mayLeaveDisabled) openToggle(out, id, in.assumed);
      return out;
    }
    if (summary->returnsSavedMode && !event.var.empty()) storeSaved(out, event.var, in);
    applyCallEffect(out, id, event, *summary, in);
    return out;
  }
  default: return in;
  }
}

GradFact GradStateAnalysis::exceptionFact(NodeId id, const Node& node, const GradFact& in) const {
  const FunctionSummary* summary = summaryFor(node.event);
  if (summary == nullptr) return in;
  // A helper that sets the mode whatever happens (it never returns the caller's mode, and
  // disables nothing here) counts as having set it: `finally: _leave(prev)`.
  const bool restores = summary->restoresOuterMode ||
                        (!summary->mayLeaveDisabled && !summary->mayLeaveInherited &&
                         !passesFalse(node.event, *summary));
  return restores ? transfer(id, node, in) : in;
}

NodeId certainlyDisabledBy(const FunctionIR& fn, const ModeState& fact) {
  if (fact.inherited || fact.mayBeEnabled || !fact.fromArgs.empty()) return kNoNode;
  // Every toggle in force must turn grad off (not `set_grad_enabled(flag)`).
  const bool allDisable = std::all_of(fact.open.begin(), fact.open.end(), [&](NodeId toggle) {
    const Event& t = fn.nodes[toggle].event;
    return t.kind == EventKind::Call || t.value == GradValue::Disabled;
  });
  if (!allDisable) return kNoNode;
  if (!fact.guards.empty()) return fact.guards.front();
  return fact.open.empty() ? kNoNode : fact.open.front();
}

bool isToggle(const Node& node, const GradStateAnalysis& analysis) {
  const Event& event = node.event;
  if (event.kind == EventKind::SetGrad) return event.value != GradValue::Enabled;
  // A decorator's region restores on every exit, as a with-block does.
  if (event.decoratorUse != DecoratorUse::None) return false;
  if ((event.kind == EventKind::EnterGuard || event.kind == EventKind::ExitGuard) &&
      event.guard == GuardKind::Other) {
    const FunctionSummary* method = analysis.methodSummary(
        event, event.kind == EventKind::EnterGuard ? "__enter__" : "__exit__");
    return method != nullptr && method->mayLeaveDisabled && !method->restoresOuterMode;
  }
  const FunctionSummary* summary = analysis.summaryFor(event);
  if (summary == nullptr) return false;
  return summary->mayLeaveDisabled || passesFalse(event, *summary);
}

GradStateReport analyzeGradState(const FunctionIR& fn, const SummaryTable* summaries) {
  GradStateAnalysis analysis(summaries, fn.qualifiedName, &fn.params);
  GradStateReport report;
  report.flow = solveForward(fn, analysis);

  std::vector<NodeId> exits;
  for (NodeId id = 0; id < fn.nodes.size(); ++id) {
    if (!report.flow.reached[id]) continue;
    switch (fn.nodes[id].event.kind) {
    case EventKind::Return:
    case EventKind::FallThrough:
    case EventKind::Yield:
    case EventKind::Await: exits.push_back(id); break;
    default: break;
    }
  }
  // Each toggle's first normal exit in source order that leaks it, and its exceptional leak:
  // rules decide which to report (GL104 only when no normal leak is reported).
  std::stable_sort(exits.begin(), exits.end(), [&](NodeId a, NodeId b) {
    return fn.nodes[a].event.range.startByte < fn.nodes[b].event.range.startByte;
  });
  // A suspension (yield, await) and a return are kept apart: a `@contextmanager` generator
  // that disables before its `yield` means to, but the same toggle still open where the
  // generator ends leaks after every `with` block over it, and that leak must not hide behind
  // the yield that came first.
  std::vector<std::pair<NodeId, bool>> reported; // (toggle, at a suspension)
  for (NodeId exit : exits) {
    const EventKind kind = fn.nodes[exit].event.kind;
    const bool suspends = kind == EventKind::Yield || kind == EventKind::Await;
    for (NodeId toggle : report.flow.in[exit].open) {
      const std::pair<NodeId, bool> key{toggle, suspends};
      if (std::find(reported.begin(), reported.end(), key) != reported.end()) continue;
      reported.push_back(key);
      report.leaks.push_back({toggle, exit, false});
    }
  }
  if (fn.exceptionalExit != kNoNode && report.flow.reached[fn.exceptionalExit]) {
    for (NodeId toggle : report.flow.in[fn.exceptionalExit].open) {
      report.leaks.push_back({toggle, fn.exceptionalExit, true});
    }
  }
  // Stable: of a toggle's two normal leaks, the first in source order comes first.
  std::stable_sort(report.leaks.begin(), report.leaks.end(), [](const Leak& a, const Leak& b) {
    return std::tie(a.toggle, a.exceptional) < std::tie(b.toggle, b.exceptional);
  });
  return report;
}

std::vector<NodeId> witnessPath(const FunctionIR& fn, const DataflowResult<GradFact>& flow,
                                NodeId toggle, NodeId exit) {
  // Breadth-first over edges that keep `toggle` in force; the transfer is re-run on the fly.
  auto holds = [&](const ToggleSet& set) {
    return std::binary_search(set.begin(), set.end(), toggle);
  };
  std::vector<NodeId> parent(fn.nodes.size(), kNoNode);
  std::vector<bool> seen(fn.nodes.size(), false);
  std::deque<NodeId> queue{toggle};
  seen[toggle] = true;
  while (!queue.empty()) {
    const NodeId id = queue.front();
    queue.pop_front();
    if (id == exit) break;
    const Node& node = fn.nodes[id];
    auto visit = [&](NodeId next) {
      if (next == kNoNode || seen[next] || !flow.reached[next] || !holds(flow.in[next].open)) {
        return;
      }
      seen[next] = true;
      parent[next] = id;
      queue.push_back(next);
    };
    if (id != toggle && node.exceptionSucc != kNoNode && holds(flow.in[id].open)) {
      visit(node.exceptionSucc);
    }
    for (NodeId succ : node.succs) visit(succ);
  }
  std::vector<NodeId> path;
  if (!seen[exit]) return {toggle, exit};
  for (NodeId at = exit; at != kNoNode; at = parent[at]) path.push_back(at);
  std::reverse(path.begin(), path.end());
  return path;
}

} // namespace gradlint::ir
