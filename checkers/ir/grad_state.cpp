#include "checkers/ir/grad_state.h"

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
                       old.returnsSavedMode != summary.returnsSavedMode ||
                       old.restoresArgs != summary.restoresArgs ||
                       old.resetsGradients != summary.resetsGradients ||
                       old.offloadsArgs != summary.offloadsArgs;
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

namespace {

bool unionInto(ToggleSet& into, const ToggleSet& from) {
  if (from.empty()) return false;
  ToggleSet merged;
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

void storeSaved(GradFact& fact, const std::string& var, bool inherited, const ToggleSet& open) {
  if (SavedMode* existing = findSaved(fact.saved, var)) {
    existing->inherited = inherited;
    existing->open = open;
    return;
  }
  auto it = std::lower_bound(fact.saved.begin(), fact.saved.end(), var,
                             [](const SavedMode& s, const std::string& v) { return s.var < v; });
  fact.saved.insert(it, SavedMode{var, inherited, open});
}

// Grad mode becomes whatever `var` saved; a variable never saved on this path is taken to hold
// the caller's mode, which is what every save at function entry holds.
void restoreFrom(GradFact& fact, const std::string& var) {
  if (const SavedMode* saved = findSaved(fact.saved, var)) {
    fact.inherited = saved->inherited;
    fact.open = saved->open;
  } else {
    fact.inherited = true;
    fact.open.clear();
  }
}

// The argument a call passes for a `restoresArgs` parameter decides what the call does.
enum class ArgEffect { None, Restore, Enable, Disable };

ArgEffect argEffect(const Event& event, const FunctionSummary& summary, std::string* var) {
  for (int index : summary.restoresArgs) {
    const auto at = static_cast<size_t>(index);
    if (at < event.argBools.size() && event.argBools[at] == 1) return ArgEffect::Enable;
    if (at < event.argBools.size() && event.argBools[at] == 0) return ArgEffect::Disable;
    if (at < event.argVars.size() && !event.argVars[at].empty()) {
      *var = event.argVars[at];
      return ArgEffect::Restore;
    }
  }
  return ArgEffect::None;
}

} // namespace

bool GradStateAnalysis::join(GradFact& into, const GradFact& from) const {
  bool changed = unionInto(into.open, from.open);
  if (from.inherited && !into.inherited) {
    into.inherited = true;
    changed = true;
  }
  for (const SavedMode& saved : from.saved) {
    if (SavedMode* mine = findSaved(into.saved, saved.var)) {
      changed |= unionInto(mine->open, saved.open);
      if (saved.inherited && !mine->inherited) {
        mine->inherited = true;
        changed = true;
      }
    } else {
      storeSaved(into, saved.var, saved.inherited, saved.open);
      changed = true;
    }
  }
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
    out.inherited = false;
    out.open.clear();
    if (event.value != GradValue::Enabled) out.open.push_back(id);
    return out;
  }
  case EventKind::SaveGrad: {
    GradFact out = in;
    storeSaved(out, event.var, in.inherited, in.open);
    return out;
  }
  case EventKind::RestoreGrad: {
    GradFact out = in;
    restoreFrom(out, event.var);
    return out;
  }
  case EventKind::RestoreArg: {
    GradFact out = in;
    out.inherited = true;
    out.open.clear();
    return out;
  }
  // A grad-mode with-block saves the mode on entry and puts it back on exit, so a toggle inside
  // `with torch.enable_grad():` ends with the block.
  case EventKind::EnterGuard: {
    if (event.guard == GuardKind::Other || event.var.empty()) return in;
    GradFact out = in;
    storeSaved(out, event.var, in.inherited, in.open);
    return out;
  }
  case EventKind::ExitGuard: {
    if (event.guard == GuardKind::Other || event.var.empty()) return in;
    GradFact out = in;
    restoreFrom(out, event.var);
    return out;
  }
  case EventKind::Call: {
    const FunctionSummary* summary = summaryFor(event);
    if (summary == nullptr) return in;
    GradFact out = in;
    std::string var;
    switch (argEffect(event, *summary, &var)) {
    case ArgEffect::Restore: restoreFrom(out, var); return out;
    case ArgEffect::Enable: out.inherited = false; out.open.clear(); return out;
    case ArgEffect::Disable: out.inherited = false; out.open.assign(1, id); return out;
    case ArgEffect::None: break;
    }
    if (summary->returnsSavedMode && !event.var.empty()) {
      storeSaved(out, event.var, in.inherited, in.open);
    }
    if (!summary->mayLeaveInherited) {
      out.inherited = false;
      out.open.clear();
    }
    if (summary->mayLeaveDisabled) {
      auto it = std::lower_bound(out.open.begin(), out.open.end(), id);
      if (it == out.open.end() || *it != id) out.open.insert(it, id);
    }
    return out;
  }
  default: return in;
  }
}

GradFact GradStateAnalysis::exceptionFact(NodeId id, const Node& node, const GradFact& in) const {
  const FunctionSummary* summary = summaryFor(node.event);
  if (summary == nullptr) return in;
  std::string var;
  const ArgEffect effect = argEffect(node.event, *summary, &var);
  const bool restores = effect == ArgEffect::Restore || effect == ArgEffect::Enable ||
                        (effect == ArgEffect::None && !summary->mayLeaveDisabled &&
                         !summary->mayLeaveInherited);
  return restores ? transfer(id, node, in) : in;
}

bool isToggle(const Node& node, const GradStateAnalysis& analysis) {
  const Event& event = node.event;
  if (event.kind == EventKind::SetGrad) return event.value != GradValue::Enabled;
  const FunctionSummary* summary = analysis.summaryFor(event);
  if (summary == nullptr) return false;
  std::string var;
  const ArgEffect effect = argEffect(event, *summary, &var);
  if (effect != ArgEffect::None) return effect == ArgEffect::Disable;
  return summary->mayLeaveDisabled;
}

GradStateReport analyzeGradState(const FunctionIR& fn, const SummaryTable* summaries) {
  GradStateAnalysis analysis(summaries, fn.qualifiedName);
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
  std::vector<NodeId> reported;
  auto alreadyReported = [&](NodeId toggle) {
    return std::find(reported.begin(), reported.end(), toggle) != reported.end();
  };
  for (NodeId exit : exits) {
    for (NodeId toggle : report.flow.in[exit].open) {
      if (alreadyReported(toggle)) continue;
      reported.push_back(toggle);
      report.leaks.push_back({toggle, exit, false});
    }
  }
  if (fn.exceptionalExit != kNoNode && report.flow.reached[fn.exceptionalExit]) {
    for (NodeId toggle : report.flow.in[fn.exceptionalExit].open) {
      report.leaks.push_back({toggle, fn.exceptionalExit, true});
    }
  }
  std::sort(report.leaks.begin(), report.leaks.end(), [](const Leak& a, const Leak& b) {
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
