#include "rules/training_loop.h"

#include "checkers/ir/attribute_paths.h"

#include <algorithm>
#include <string_view>

namespace gradlint::rules {
namespace {

using ir::EventKind;
using ir::NodeId;
using ir::ToggleSet;

bool unionInto(ToggleSet& into, const ToggleSet& from) {
  bool changed = false;
  for (NodeId id : from) {
    auto it = std::lower_bound(into.begin(), into.end(), id);
    if (it == into.end() || *it != id) {
      into.insert(it, id);
      changed = true;
    }
  }
  return changed;
}

// Gradients written by hand over what backward() left: `p.grad = g`, `p.grad.fill_(v)`,
// `p.grad.copy_(g)` (tests that fake gradients). Written between a backward and the step, the
// step applies the written values, so nothing accumulated reaches it; unlike a reset (GL305),
// the step has something to apply.
bool writesGradients(const ir::Event& event) {
  auto endsWith = [](std::string_view text, std::string_view tail) {
    return text.size() > tail.size() && text.ends_with(tail);
  };
  if (event.kind == EventKind::Assign) return endsWith(event.var, ".grad");
  if (event.kind != EventKind::Call) return false;
  for (std::string_view tail : {".grad.fill_", ".grad.copy_", ".grad.data.fill_",
                                ".grad.data.copy_"}) {
    if (endsWith(event.spelled, tail)) return true;
  }
  return false;
}

// `base.x.y` (any depth) of `base`.
bool isAttributePathOf(std::string_view path, std::string_view base) {
  return !base.empty() && path.size() > base.size() && path.starts_with(base) &&
         path[base.size()] == '.';
}

// A step taken while gradients were dirty, and the branch outcomes every path that took it had
// taken (`if not did_step: ... else: opt.step()`), so that a later branch on the same condition
// (`if did_step: opt.zero_grad()`) can tell the paths on which it is pending from those on
// which it never ran.
struct PendingStep {
  NodeId step = ir::kNoNode;
  ir::Assumptions when;
};

struct AccumulationFact {
  bool dirty = false;                  // a backward since the last reset
  std::vector<PendingStep> pendingSteps; // steps taken while dirty, no reset since; by step
  bool afterBackward = false;          // a backward since the last step
  ToggleSet zerosAfterBackward;        // resets after a backward, with no backward or step since
  ir::Assumptions assumed;             // branch outcomes that hold on every path here
};

void addPending(std::vector<PendingStep>& pending, NodeId step, const ir::Assumptions& when) {
  auto it = std::lower_bound(pending.begin(), pending.end(), step,
                             [](const PendingStep& p, NodeId id) { return p.step < id; });
  if (it != pending.end() && it->step == step) {
    ir::intersectInto(it->when, when); // taken again (a loop): only what both paths share
  } else {
    pending.insert(it, {step, when});
  }
}

// The pending steps of both sides; a step pending on both holds only the outcomes both share.
bool joinPending(std::vector<PendingStep>& into, const std::vector<PendingStep>& from) {
  bool changed = false;
  for (const PendingStep& theirs : from) {
    auto it = std::lower_bound(into.begin(), into.end(), theirs.step,
                               [](const PendingStep& p, NodeId id) { return p.step < id; });
    if (it == into.end() || it->step != theirs.step) {
      into.insert(it, theirs);
      changed = true;
    } else {
      changed |= ir::intersectInto(it->when, theirs.when);
    }
  }
  return changed;
}

class AccumulationAnalysis {
public:
  AccumulationAnalysis(const ir::SummaryTable& summaries, const std::vector<ir::Node>& nodes)
      : summaries_(summaries), fnNodes_(&nodes) {}
  AccumulationFact entryFact() const { return {}; }
  bool join(AccumulationFact& into, const AccumulationFact& from) const {
    bool changed = joinPending(into.pendingSteps, from.pendingSteps);
    changed |= unionInto(into.zerosAfterBackward, from.zerosAfterBackward);
    changed |= ir::intersectInto(into.assumed, from.assumed);
    if (from.dirty && !into.dirty) into.dirty = changed = true;
    if (from.afterBackward && !into.afterBackward) into.afterBackward = changed = true;
    return changed;
  }
  AccumulationFact exceptionFact(NodeId, const ir::Node&, const AccumulationFact& in) const {
    return in;
  }
  AccumulationFact transfer(NodeId id, const ir::Node& node, const AccumulationFact& in) const {
    AccumulationFact out = in;
    bool backward = node.event.kind == EventKind::Backward;
    bool step = node.event.kind == EventKind::Step;
    bool reset = node.event.kind == EventKind::ZeroGrad;
    if (const ir::FunctionSummary* summary = summaryFor(node.event)) {
      // A helper that resets gradients counts as a reset. A helper's own backward and step
      // do not count: they usually act on models and optimizers it creates itself (a test
      // that builds a fresh model per call), and without object identity that would be noise.
      reset = summary->resetsGradients;
    }
    if (backward) {
      out.dirty = true;
      out.pendingSteps.clear();
      out.afterBackward = true;
      out.zerosAfterBackward.clear();
    }
    if (step) {
      if (out.dirty) addPending(out.pendingSteps, id, out.assumed);
      out.afterBackward = false;
      out.zerosAfterBackward.clear();
    }
    if (node.event.kind == EventKind::Assume) {
      // A step that ran only under the opposite outcome is not pending on this path.
      const ir::Assumption outcome{node.event.var, node.event.value == ir::GradValue::Enabled};
      std::erase_if(out.pendingSteps, [&](const PendingStep& pending) {
        return std::any_of(pending.when.begin(), pending.when.end(), [&](const ir::Assumption& a) {
          return a.key == outcome.key && a.holds != outcome.holds;
        });
      });
      auto it = std::lower_bound(
          out.assumed.begin(), out.assumed.end(), outcome.key,
          [](const ir::Assumption& a, const std::string& key) { return a.key < key; });
      if (it != out.assumed.end() && it->key == outcome.key) it->holds = outcome.holds;
      else out.assumed.insert(it, outcome);
    }
    if (node.event.kind == EventKind::Assign && !node.event.var.empty()) {
      // What was known of a condition on the assigned name no longer holds.
      const std::string& var = node.event.var;
      auto mentioned = [&](const ir::Assumption& a) { return ir::mentions(a, var); };
      std::erase_if(out.assumed, mentioned);
      for (PendingStep& pending : out.pendingSteps) std::erase_if(pending.when, mentioned);
    }
    // An optimizer built anew over new leaf tensors (`opt = torch.optim.SGD([x_in])` each
    // iteration) holds no gradient yet: the steps of the one it replaces are done with.
    // Rebinding `a` makes every `a.x.y` another object: `trainer = Trainer(new_model, ...)`
    // builds a new `trainer.optimizer` over a new model, so the steps taken through the old
    // path are done with too.
    if (node.event.kind == EventKind::Assign && !out.pendingSteps.empty()) {
      const bool fresh = node.event.sources().freshValue;
      const std::string_view bound = node.event.var;
      std::erase_if(out.pendingSteps, [&](const PendingStep& pending) {
        const std::string_view stepped = (*fnNodes_)[pending.step].event.var;
        return (fresh && stepped == bound) || isAttributePathOf(stepped, bound);
      });
    }
    if (reset) {
      out.dirty = false;
      out.pendingSteps.clear();
      if (out.afterBackward && !step) ir::insertSorted(out.zerosAfterBackward, id);
    } else if (out.afterBackward && writesGradients(node.event)) {
      // Between a backward and its step: the step applies the written values, and the next
      // backward adds to values already applied and then written over again.
      out.dirty = false;
    }
    return out;
  }
  const ir::FunctionSummary* summaryFor(const ir::Event& event) const {
    return summaries_.findFor(event);
  }

private:
  const ir::SummaryTable& summaries_;
  const std::vector<ir::Node>* fnNodes_;
};

bool hasTrainingEvents(const ir::FunctionIR& fn) {
  bool backward = false;
  bool step = false;
  for (const ir::Node& node : fn.nodes) {
    const ir::Event& event = node.event;
    backward = backward || event.kind == EventKind::Backward;
    step = step || event.kind == EventKind::Step;
  }
  return backward && step;
}

} // namespace

AccumulationFindings analyzeAccumulation(const ir::FunctionIR& fn,
                                         const ir::SummaryTable& summaries) {
  AccumulationFindings findings;
  if (fn.entry == ir::kNoNode || !hasTrainingEvents(fn)) return findings;
  AccumulationAnalysis analysis(summaries, fn.nodes);
  const auto flow = ir::solveForward(fn, analysis);
  for (NodeId id = 0; id < fn.nodes.size(); ++id) {
    if (!flow.reached[id]) continue;
    const ir::Event& event = fn.nodes[id].event;
    const bool backward = event.kind == EventKind::Backward;
    const bool step = event.kind == EventKind::Step;
    if (backward) {
      for (const PendingStep& stale : flow.in[id].pendingSteps) {
        findings.staleSteps.push_back({stale.step, id});
      }
    }
    if (step && !backward) {
      for (NodeId zero : flow.in[id].zerosAfterBackward) {
        findings.zeroBeforeStep.push_back({zero, id});
      }
    }
  }
  // One finding per step / zero_grad, at the first place it bites.
  auto byFirst = [](const auto& a, const auto& b) { return a < b; };
  std::sort(findings.staleSteps.begin(), findings.staleSteps.end(),
            [&](const auto& a, const auto& b) { return byFirst(a.step, b.step); });
  findings.staleSteps.erase(
      std::unique(findings.staleSteps.begin(), findings.staleSteps.end(),
                  [](const auto& a, const auto& b) { return a.step == b.step; }),
      findings.staleSteps.end());
  std::sort(findings.zeroBeforeStep.begin(), findings.zeroBeforeStep.end(),
            [&](const auto& a, const auto& b) { return byFirst(a.zeroGrad, b.zeroGrad); });
  findings.zeroBeforeStep.erase(
      std::unique(findings.zeroBeforeStep.begin(), findings.zeroBeforeStep.end(),
                  [](const auto& a, const auto& b) { return a.zeroGrad == b.zeroGrad; }),
      findings.zeroBeforeStep.end());
  return findings;
}

std::optional<ir::SourceRange> gradDisabledCause(RuleContext& context, size_t unitIndex,
                                                 NodeId node) {
  // The mode the dataflow computed, not the lexical region: a `set_grad_enabled(True)` inside
  // `with torch.no_grad():` turns grad back on.
  const ir::FunctionIR& fn = context.module().units[unitIndex];
  const ir::GradStateReport& state = context.gradState(unitIndex);
  if (!state.flow.reached[node]) return std::nullopt;
  const NodeId cause = ir::certainlyDisabledBy(fn, state.flow.in[node]);
  if (cause == ir::kNoNode) return std::nullopt;
  return fn.nodes[cause].event.range;
}

bool gradDisabledAt(RuleContext& context, size_t unitIndex, NodeId node) {
  return gradDisabledCause(context, unitIndex, node).has_value();
}

namespace {

using Definitions = std::vector<std::pair<std::string, std::vector<NodeId>>>;

class ReachingDefinitions {
public:
  explicit ReachingDefinitions(const std::vector<std::string>& tracked) : tracked_(tracked) {}
  Definitions entryFact() const { return {}; }
  bool join(Definitions& into, const Definitions& from) const {
    bool changed = false;
    for (const auto& [var, defs] : from) {
      auto it = std::lower_bound(into.begin(), into.end(), var,
                                 [](const auto& entry, const std::string& v) {
                                   return entry.first < v;
                                 });
      if (it == into.end() || it->first != var) {
        into.insert(it, {var, defs});
        changed = true;
      } else {
        changed |= unionInto(it->second, defs);
      }
    }
    return changed;
  }
  Definitions exceptionFact(NodeId, const ir::Node&, const Definitions& in) const { return in; }
  Definitions transfer(NodeId id, const ir::Node& node, const Definitions& in) const {
    if (node.event.kind != EventKind::Assign ||
        !std::binary_search(tracked_.begin(), tracked_.end(), node.event.var)) {
      return in;
    }
    Definitions out = in;
    auto it = std::lower_bound(out.begin(), out.end(), node.event.var,
                               [](const auto& entry, const std::string& v) {
                                 return entry.first < v;
                               });
    if (it == out.end() || it->first != node.event.var) {
      out.insert(it, {node.event.var, {id}});
    } else {
      it->second.assign(1, id); // a definition kills the earlier ones
    }
    return out;
  }

private:
  const std::vector<std::string>& tracked_;
};

} // namespace

DisabledDefinitions::DisabledDefinitions(RuleContext& context, size_t unitIndex)
    : fn_(context.module().units[unitIndex]) {
  disabled_.assign(fn_.nodes.size(), false);
  inference_.assign(fn_.nodes.size(), false);
  causes_.assign(fn_.nodes.size(), ir::SourceRange{});
  for (NodeId id = 0; id < fn_.nodes.size(); ++id) {
    const ir::Event& event = fn_.nodes[id].event;
    if (event.kind != EventKind::Assign || event.sources().freshValue) continue;
    const std::optional<ir::SourceRange> cause = gradDisabledCause(context, unitIndex, id);
    if (!cause) continue;
    disabled_[id] = true;
    causes_[id] = *cause;
    inference_[id] = event.region == ir::GuardKind::InferenceMode && event.regionDisablesGrad;
    tracked_.push_back(event.var);
  }
  std::sort(tracked_.begin(), tracked_.end());
  tracked_.erase(std::unique(tracked_.begin(), tracked_.end()), tracked_.end());
  if (tracked_.empty()) return;
  // Views of tracked values (`y = x.detach()`) are tracked too: a view shares its source's data
  // and keeps what it is (no graph, an inference tensor).
  std::vector<NodeId> views;
  for (NodeId id = 0; id < fn_.nodes.size(); ++id) {
    const ir::Event& event = fn_.nodes[id].event;
    if (event.kind == EventKind::Assign && !event.sources().viewOf.empty() && !disabled_[id]) {
      views.push_back(id);
    }
  }
  for (bool grew = !views.empty(); grew;) {
    grew = false;
    for (NodeId id : views) {
      const ir::Event& event = fn_.nodes[id].event;
      if (std::binary_search(tracked_.begin(), tracked_.end(), event.sources().viewOf) &&
          !std::binary_search(tracked_.begin(), tracked_.end(), event.var)) {
        tracked_.insert(std::lower_bound(tracked_.begin(), tracked_.end(), event.var), event.var);
        grew = true;
      }
    }
  }
  ReachingDefinitions analysis(tracked_);
  flow_ = ir::solveForward(fn_, analysis);
  // In source order until nothing changes: a view of a view follows its source.
  for (bool changed = !views.empty(); changed;) {
    changed = false;
    for (NodeId id : views) {
      if (disabled_[id]) continue;
      const std::vector<NodeId> sources = reaching(id, fn_.nodes[id].event.sources().viewOf);
      if (sources.empty() ||
          !std::all_of(sources.begin(), sources.end(), [&](NodeId d) { return disabled_[d]; })) {
        continue;
      }
      disabled_[id] = true;
      causes_[id] = causes_[sources.front()];
      inference_[id] = std::any_of(sources.begin(), sources.end(),
                                   [&](NodeId d) { return inference_[d]; });
      changed = true;
    }
  }
}

std::vector<NodeId> DisabledDefinitions::reaching(NodeId node, const std::string& var) const {
  if (tracked_.empty() || !flow_.reached[node]) return {};
  const Definitions& defs = flow_.in[node];
  auto it = std::lower_bound(defs.begin(), defs.end(), var,
                             [](const auto& entry, const std::string& v) {
                               return entry.first < v;
                             });
  return it != defs.end() && it->first == var ? it->second : std::vector<NodeId>{};
}

bool DisabledDefinitions::disabled(NodeId definition) const { return disabled_[definition]; }

bool DisabledDefinitions::inference(NodeId definition) const { return inference_[definition]; }

} // namespace gradlint::rules
