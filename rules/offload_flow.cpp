#include "rules/offload_flow.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <unordered_map>
#include <unordered_set>

namespace gradlint::rules {
namespace {

using ir::EventKind;
using ir::NodeId;
using OffloadFact = std::vector<OffloadedObject>; // sorted by path

// `pipe` covers `pipe.unet` and the other way round: training a component of an offloaded
// pipeline, or the model containing an offloaded submodule, both hit the hooks.
bool related(const std::string& a, const std::string& b) {
  auto within = [](const std::string& inner, const std::string& outer) {
    return inner.size() > outer.size() && inner.starts_with(outer) && inner[outer.size()] == '.';
  };
  return a == b || within(a, b) || within(b, a);
}

// Names assigned once, from another object path (`encoder = model.encoder`), are that object
// wherever they appear. Names rebound later are followed by the dataflow instead.
class StableAliases {
public:
  explicit StableAliases(const ir::FunctionIR& fn) {
    std::unordered_map<std::string, int> definitions;
    for (const ir::Node& node : fn.nodes) {
      if (node.event.kind == EventKind::Assign) ++definitions[node.event.var];
    }
    for (const ir::Node& node : fn.nodes) {
      const ir::Event& event = node.event;
      if (event.kind == EventKind::Assign && !event.aliasOf.empty() &&
          definitions[event.var] == 1 && event.aliasOf != event.var) {
        targets_[event.var] = event.aliasOf;
      }
    }
  }
  std::string resolve(std::string path) const {
    for (int hop = 0; hop < 8 && !targets_.empty(); ++hop) {
      const size_t dot = path.find('.');
      auto it = targets_.find(path.substr(0, dot));
      if (it == targets_.end()) break;
      path = it->second + (dot == std::string::npos ? std::string() : path.substr(dot));
    }
    return path;
  }

private:
  std::unordered_map<std::string, std::string> targets_;
};

class OffloadAnalysis {
public:
  OffloadAnalysis(const ir::SummaryTable& summaries, const StableAliases& aliases,
                  OffloadFact entry)
      : summaries_(summaries), aliases_(aliases), entry_(std::move(entry)) {}

  OffloadFact entryFact() const { return entry_; }
  bool join(OffloadFact& into, const OffloadFact& from) const {
    bool changed = false;
    for (const OffloadedObject& object : from) {
      auto it = find(into, object.path);
      if (it == into.end() || it->path != object.path) {
        into.insert(it, object);
        changed = true;
      } else {
        // Offloaded for sure on one path beats "maybe" on another; a move on any path counts.
        if (it->mayOffload && !object.mayOffload) {
          *it = object;
          changed = true;
        }
        if (object.movedAfter && !it->movedAfter) {
          it->movedAfter = true;
          it->moved = object.moved;
          changed = true;
        }
      }
    }
    return changed;
  }
  OffloadFact exceptionFact(NodeId, const ir::Node&, const OffloadFact& in) const { return in; }
  OffloadFact transfer(NodeId, const ir::Node& node, const OffloadFact& in) const {
    const ir::Event& event = node.event;
    switch (event.kind) {
    case EventKind::Offload: {
      OffloadFact out = in;
      const std::string path = aliases_.resolve(event.var);
      add(out, {path, path, event.range, event.callee, event.mayOffload, false, {}});
      return out;
    }
    case EventKind::ResetPlacement: {
      OffloadFact out = in;
      const std::string path = aliases_.resolve(event.var);
      std::erase_if(out, [&](const OffloadedObject& o) { return related(o.path, path); });
      return out;
    }
    case EventKind::MoveTo: {
      OffloadFact out = in;
      const std::string path = aliases_.resolve(event.var);
      for (OffloadedObject& object : out) {
        if (related(object.path, path) && !object.movedAfter) {
          object.movedAfter = true;
          object.moved = event.range;
        }
      }
      return out;
    }
    case EventKind::Assign: {
      // Rebinding a name to another object ends tracking, unless the value came from the same
      // object (`model = accelerator.prepare(model)`). `unet = pipe.unet` makes an alias.
      if (in.empty() || std::find(event.deps.begin(), event.deps.end(), event.var) !=
                            event.deps.end()) {
        return in;
      }
      OffloadFact out = in;
      std::erase_if(out, [&](const OffloadedObject& o) {
        return o.path == event.var || o.path.starts_with(event.var + ".");
      });
      if (!event.aliasOf.empty()) {
        const std::string target = aliases_.resolve(event.aliasOf);
        for (const OffloadedObject& object : in) {
          if (!related(object.path, target)) continue;
          OffloadedObject alias = object;
          alias.path = event.var;
          add(out, std::move(alias));
          break;
        }
      }
      return out;
    }
    case EventKind::Call: {
      const ir::FunctionSummary* summary =
          summaries_.findFor(event);
      if (summary == nullptr || summary->offloadsArgs.empty()) return in;
      OffloadFact out = in;
      auto offload = [&](const std::string& var) {
        if (var.empty()) return;
        const std::string path = aliases_.resolve(var);
        add(out, {path, path, event.range, fmt::format("{}()", event.spelled), false, false, {}});
      };
      for (size_t i = 0; i < summary->offloadsArgs.size(); ++i) {
        const auto at = static_cast<size_t>(summary->offloadsArgs[i]);
        if (at < event.argVars.size()) offload(event.argVars[at]);
        for (const auto& [name, var] : event.keywordVars) {
          if (name == summary->offloadsParams[i]) offload(var);
        }
      }
      return out;
    }
    default: return in;
    }
  }

private:
  static OffloadFact::iterator find(OffloadFact& fact, const std::string& path) {
    return std::lower_bound(fact.begin(), fact.end(), path,
                            [](const OffloadedObject& o, const std::string& p) { return o.path < p; });
  }
  static void add(OffloadFact& fact, OffloadedObject object) {
    auto it = find(fact, object.path);
    if (it != fact.end() && it->path == object.path) {
      *it = std::move(object);
    } else {
      fact.insert(it, std::move(object));
    }
  }

  const ir::SummaryTable& summaries_;
  const StableAliases& aliases_;
  OffloadFact entry_;
};

// Names whose values flow into each backward() of the unit (flow-insensitive closure).
std::unordered_set<std::string> backwardInputs(const ir::FunctionIR& fn, const std::string& var) {
  std::unordered_set<std::string> reached{var};
  bool grew = true;
  while (grew) {
    grew = false;
    for (const ir::Node& node : fn.nodes) {
      const ir::Event& event = node.event;
      // Values computed with grad off carry no graph back to what computed them.
      if (event.kind != EventKind::Assign || event.regionDisablesGrad || !reached.count(event.var)) {
        continue;
      }
      for (const std::string& dep : event.deps) grew |= reached.insert(dep).second;
    }
  }
  return reached;
}

bool hasPlacementEvents(const ir::FunctionIR& fn, const ir::SummaryTable& summaries) {
  return std::any_of(fn.nodes.begin(), fn.nodes.end(), [&](const ir::Node& node) {
    if (node.event.kind == EventKind::Offload) return true;
    if (node.event.kind != EventKind::Call || node.event.callee.empty()) return false;
    const ir::FunctionSummary* summary = summaries.find(node.event.callee);
    return summary != nullptr && !summary->offloadsArgs.empty();
  });
}

bool hasTraining(const ir::FunctionIR& fn) {
  return std::any_of(fn.nodes.begin(), fn.nodes.end(), [](const ir::Node& node) {
    return node.event.kind == EventKind::Train || node.event.kind == EventKind::Backward;
  });
}

// Runs the analysis of one unit from `entry` and appends what it finds.
void analyzeUnit(RuleContext& context, size_t unitIndex, OffloadFact entry,
                 std::vector<TrainedWhileOffloaded>& found, OffloadFact* exitFact) {
  const ir::FunctionIR& fn = context.module().units[unitIndex];
  const StableAliases aliases(fn);
  OffloadAnalysis analysis(context.summaries(), aliases, std::move(entry));
  const auto flow = ir::solveForward(fn, analysis);
  if (exitFact != nullptr && fn.normalExit != ir::kNoNode && flow.reached[fn.normalExit]) {
    *exitFact = flow.in[fn.normalExit];
  }
  // First training action per offload, in source order.
  std::map<uint32_t, TrainedWhileOffloaded> firstByOffload;
  for (NodeId id = 0; id < fn.nodes.size(); ++id) {
    if (!flow.reached[id] || flow.in[id].empty()) continue;
    const ir::Event& event = fn.nodes[id].event;
    std::vector<std::string> trained;
    if (event.kind == EventKind::Train) {
      trained.push_back(aliases.resolve(event.var));
    } else if (event.kind == EventKind::Backward && !event.var.empty()) {
      for (const std::string& input : backwardInputs(fn, event.var)) {
        trained.push_back(aliases.resolve(input));
      }
    } else {
      continue;
    }
    for (const OffloadedObject& object : flow.in[id]) {
      for (const std::string& path : trained) {
        if (!related(object.path, path)) continue;
        auto [it, inserted] = firstByOffload.try_emplace(object.offload.startByte,
                                                         TrainedWhileOffloaded{unitIndex, id, object, path});
        if (!inserted && event.range.startByte < fn.nodes[it->second.training].event.range.startByte) {
          it->second = TrainedWhileOffloaded{unitIndex, id, object, path};
        }
        break;
      }
    }
  }
  for (auto& [offset, finding] : firstByOffload) found.push_back(std::move(finding));
}

} // namespace

std::vector<TrainedWhileOffloaded> findTrainingAfterOffload(RuleContext& context) {
  std::vector<TrainedWhileOffloaded> found;
  const auto& units = context.module().units;
  // Per class: what each method leaves offloaded on `self`, for the other methods to start from
  // (offload in __init__ or a setup method, training in fit).
  std::map<std::string, std::vector<std::pair<size_t, OffloadFact>>> selfOffloadsByClass;
  for (size_t index = 0; index < units.size(); ++index) {
    const ir::FunctionIR& fn = units[index];
    if (fn.entry == ir::kNoNode || !hasPlacementEvents(fn, context.summaries())) continue;
    OffloadFact exit;
    analyzeUnit(context, index, {}, found, &exit);
    std::erase_if(exit, [](const OffloadedObject& o) { return !o.path.starts_with("self."); });
    if (!fn.className.empty() && fn.kind == ir::UnitKind::Function && !exit.empty()) {
      selfOffloadsByClass[fn.className].emplace_back(index, std::move(exit));
    }
  }
  for (size_t index = 0; index < units.size(); ++index) {
    const ir::FunctionIR& fn = units[index];
    if (fn.entry == ir::kNoNode || fn.className.empty() || fn.kind != ir::UnitKind::Function ||
        fn.name == "__init__" || !hasTraining(fn)) {
      continue;
    }
    auto it = selfOffloadsByClass.find(fn.className);
    if (it == selfOffloadsByClass.end()) continue;
    OffloadFact entry;
    for (const auto& [offloader, offloaded] : it->second) {
      if (offloader == index) continue;
      for (const OffloadedObject& object : offloaded) entry.push_back(object);
    }
    if (entry.empty()) continue;
    std::sort(entry.begin(), entry.end(),
              [](const OffloadedObject& a, const OffloadedObject& b) { return a.path < b.path; });
    entry.erase(std::unique(entry.begin(), entry.end(),
                            [](const OffloadedObject& a, const OffloadedObject& b) {
                              return a.path == b.path;
                            }),
                entry.end());
    analyzeUnit(context, index, std::move(entry), found, nullptr);
  }
  return found;
}

std::string describeTraining(const ir::FunctionIR& fn, NodeId node) {
  const ir::Event& event = fn.nodes[node].event;
  switch (event.kind) {
  case EventKind::Backward: return "`backward()` through it";
  case EventKind::Train:
    if (event.callee == "requires_grad_()") return fmt::format("`{}.requires_grad_()`", event.var);
    if (event.callee == "requires_grad = True") return "`requires_grad = True` on its parameters";
    if (event.callee == "optimizer over its parameters") return "an optimizer over its parameters";
    if (event.callee == "accelerator.prepare()") return "`accelerator.prepare()` for training";
    return fmt::format("`{}.train()`", event.var);
  default: return "training";
  }
}

} // namespace gradlint::rules
