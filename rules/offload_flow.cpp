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
using ir::PlacementFact;
using ir::StableAliases;

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
      for (const std::string& dep : event.sources().deps) grew |= reached.insert(dep).second;
    }
  }
  // A name bound only under no_grad holds no graph, whatever it aliases (`targets =
  // teacher.unet(x).sample` in a no_grad block): backward() does not reach through it.
  std::unordered_map<std::string_view, bool> boundWithGrad;
  for (const ir::Node& node : fn.nodes) {
    const ir::Event& event = node.event;
    if (event.kind != EventKind::Assign || !reached.count(event.var)) continue;
    boundWithGrad[event.var] |= !event.regionDisablesGrad;
  }
  std::erase_if(reached, [&](const std::string& name) {
    auto it = boundWithGrad.find(name);
    return it != boundWithGrad.end() && !it->second;
  });
  return reached;
}

bool hasTraining(const ir::FunctionIR& fn) {
  return std::any_of(fn.nodes.begin(), fn.nodes.end(), [](const ir::Node& node) {
    return node.event.kind == EventKind::Train || node.event.kind == EventKind::Backward;
  });
}

// Runs the analysis of one unit from `entry` and appends what it finds.
void analyzeUnit(RuleContext& context, size_t unitIndex, PlacementFact entry,
                 std::vector<TrainedWhileOffloaded>& found, PlacementFact* exitFact) {
  const ir::FunctionIR& fn = context.module().units[unitIndex];
  const StableAliases aliases(fn);
  const auto flow =
      ir::analyzePlacement(fn, context.summaries(), aliases, std::move(entry), false);
  if (exitFact != nullptr && fn.normalExit != ir::kNoNode && flow.reached[fn.normalExit]) {
    *exitFact = flow.in[fn.normalExit];
  }
  // First training action per offload, in source order.
  std::map<uint32_t, TrainedWhileOffloaded> firstByOffload;
  for (NodeId id = 0; id < fn.nodes.size(); ++id) {
    if (!flow.reached[id] || flow.in[id].offloaded.empty()) continue;
    const ir::Event& event = fn.nodes[id].event;
    std::vector<std::string> trained;
    if (event.kind == EventKind::Train) {
      // Training a container (a trainer given the model) trains what it holds.
      trained = ir::withComponents(flow.in[id], aliases.resolve(event.var));
    } else if (event.kind == EventKind::Backward && !event.var.empty()) {
      for (const std::string& input : backwardInputs(fn, event.var)) {
        trained.push_back(aliases.resolve(input));
      }
    } else if (event.kind == EventKind::Backward && !event.sources().deps.empty()) {
      // An unnamed output's backward (`model(**batch).loss.backward()`): what it was computed
      // by, the module called.
      for (const std::string& dep : event.sources().deps) {
        for (const std::string& input : backwardInputs(fn, dep)) {
          trained.push_back(aliases.resolve(input));
        }
      }
    } else {
      continue;
    }
    for (const OffloadedObject& object : flow.in[id].offloaded) {
      for (const std::string& path : trained) {
        if (!ir::relatedPaths(object.path, path)) continue;
        TrainedWhileOffloaded finding{unitIndex, id, object, path,
                                      event.range.startByte < object.offload.startByte};
        auto [it, inserted] = firstByOffload.try_emplace(object.offload.startByte, finding);
        const TrainedWhileOffloaded& first = it->second;
        // The first in source order; for one training action, the object offloaded itself
        // before one offloaded as a component.
        const uint32_t firstAt = fn.nodes[first.training].event.range.startByte;
        if (!inserted && (event.range.startByte < firstAt ||
                          (event.range.startByte == firstAt && !first.object.container.empty() &&
                           object.container.empty()))) {
          it->second = std::move(finding);
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
  std::map<std::string, std::vector<std::pair<size_t, std::vector<OffloadedObject>>>>
      selfOffloadsByClass;
  for (size_t index = 0; index < units.size(); ++index) {
    const ir::FunctionIR& fn = units[index];
    if (fn.entry == ir::kNoNode || !ir::hasPlacementEvents(fn, context.summaries())) continue;
    PlacementFact exit;
    analyzeUnit(context, index, {}, found, &exit);
    std::vector<OffloadedObject>& left = exit.offloaded;
    std::erase_if(left, [](const OffloadedObject& o) { return !o.path.starts_with("self."); });
    if (!fn.className.empty() && fn.kind == ir::UnitKind::Function && !left.empty()) {
      selfOffloadsByClass[fn.className].emplace_back(index, std::move(left));
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
    PlacementFact entry;
    std::vector<OffloadedObject>& objects = entry.offloaded;
    for (const auto& [offloader, offloaded] : it->second) {
      if (offloader == index) continue;
      for (const OffloadedObject& object : offloaded) objects.push_back(object);
    }
    if (objects.empty()) continue;
    std::sort(objects.begin(), objects.end(),
              [](const OffloadedObject& a, const OffloadedObject& b) { return a.path < b.path; });
    objects.erase(std::unique(objects.begin(), objects.end(),
                              [](const OffloadedObject& a, const OffloadedObject& b) {
                                return a.path == b.path;
                              }),
                  objects.end());
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
    if (event.callee.starts_with("`")) return event.callee; // a trainer: says what it is
    return fmt::format("`{}.train()`", event.var);
  default: return "training";
  }
}

} // namespace gradlint::rules

namespace gradlint::rules {

std::string describeOffloadedObject(const TrainedWhileOffloaded& found) {
  std::string out;
  if (!found.object.container.empty()) {
    out += fmt::format(" (a component of `{}`)", found.object.container);
  }
  return out;
}

void addOffloadLocations(const RuleContext& context, const TrainedWhileOffloaded& found,
                         std::string_view offloadedHere, Diagnostic& diagnostic) {
  const OffloadedObject& object = found.object;
  std::string message(offloadedHere);
  if (!object.container.empty()) message += fmt::format(", with `{}`", object.container);
  if (found.nextIteration) message += "; the loop comes back to the training with the hooks on";
  diagnostic.related.push_back({std::string(), object.offload, std::move(message)});
  if (!object.innerText.empty()) {
    const std::string path =
        object.innerPath == context.module().path ? std::string() : object.innerPath;
    diagnostic.related.push_back(
        {path, object.innerRange,
         fmt::format("`{}` attaches the hooks here, in `{}`, and leaves them on", object.innerText,
                     object.how)});
  }
  if (object.movedAfter) {
    diagnostic.related.push_back({std::string(), object.moved, "moving it does not take the hooks off"});
  }
}

} // namespace gradlint::rules
