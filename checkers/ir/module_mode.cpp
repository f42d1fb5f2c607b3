#include "checkers/ir/module_mode.h"

#include "checkers/ir/attribute_paths.h"
#include "checkers/ir/dataflow.h"

#include <algorithm>
#include <deque>
#include <string_view>

namespace gradlint::ir {
namespace {

// The modes a module may be in at a point, as the union over the paths reaching it.
enum ModeBit : uint8_t {
  kCallerMode = 1, // a parameter (or an attribute of one) in whatever mode the caller left it
  kTrainMode = 2,  // `train()` ran
  kEvalMode = 4,   // `eval()` ran, and no evaluation pass yet
  kEvaluated = 8,  // `eval()` ran and the module was then evaluated with grad disabled
};

struct TrackedModule {
  std::string name;
  uint8_t modes = 0; // 0: untracked from here on (the name was rebound)
  NodeId evaluation = kNoNode;
};

// A name holding what a module computed with grad enabled, in the modes it may have been in.
struct ModuleOutput {
  std::string name;
  std::string module;
  uint8_t modes = 0;
  NodeId forward = kNoNode;
  NodeId evaluation = kNoNode;
};

// Where `name` is, or would go, in modules sorted by name.
template <typename Modules> auto lowerBoundByName(Modules& modules, std::string_view name) {
  return std::lower_bound(
      modules.begin(), modules.end(), name,
      [](const TrackedModule& m, std::string_view n) { return std::string_view(m.name) < n; });
}

struct ModeFact {
  std::vector<TrackedModule> modules; // sorted by name
  std::vector<ModuleOutput> outputs;  // sorted by (name, module)
};

// The module a call runs: `model(x)`, `model.forward(x)`, `model->forward(x)`.
std::string_view calledModule(const Event& event) {
  std::string_view spelled = event.spelled.str();
  for (std::string_view suffix : {".forward", "->forward"}) {
    if (spelled.ends_with(suffix)) return spelled.substr(0, spelled.size() - suffix.size());
  }
  return spelled;
}

// The receiver of a method call as written (`self` of `self.validate`), or "".
std::string_view receiverOf(const Event& event) {
  const std::string_view spelled = event.spelled.str();
  const size_t dot = spelled.rfind('.');
  return dot == std::string_view::npos ? std::string_view() : spelled.substr(0, dot);
}

// The name a call's argument `target` has in the caller, or "" when it is no plain name.
std::string argumentName(const Event& call, const ModuleArgument& target) {
  std::string base;
  if (target.argument < 0) {
    base = std::string(receiverOf(call));
  } else if (static_cast<size_t>(target.argument) < call.call().argVars.size()) {
    base = call.call().argVars[static_cast<size_t>(target.argument)].str();
  }
  if (base.empty() && !target.param.empty()) {
    for (const auto& [name, var] : call.call().keywordVars) {
      if (name == target.param) base = var.str();
    }
  }
  if (base.empty()) return {};
  return base + target.path;
}

class ModeAnalysis {
public:
  ModeAnalysis(const FunctionIR& fn, const SummaryTable& table) : fn_(fn), table_(table) {
    // The lowering drops a method's `self` from its parameters (call arguments line up).
    method_ = !fn.className.empty() && !fn.hasDecorator("staticmethod");
    for (const Node& node : fn.nodes) {
      if (node.event.kind == EventKind::Call && !node.event.spelled.empty()) {
        called_.emplace_back(calledModule(node.event));
      }
    }
    std::sort(called_.begin(), called_.end());
    called_.erase(std::unique(called_.begin(), called_.end()), called_.end());
  }

  ModeFact entryFact() const { return {}; }
  bool join(ModeFact& into, const ModeFact& from) const {
    bool changed = false;
    for (const TrackedModule& module : from.modules) {
      auto it = lowerBoundByName(into.modules, module.name);
      if (it == into.modules.end() || it->name != module.name) {
        // Absent on the other path: the default there (a parameter's caller mode).
        TrackedModule merged = module;
        merged.modes |= defaultModes(module.name);
        into.modules.insert(it, std::move(merged));
        changed = true;
      } else if ((it->modes | module.modes) != it->modes) {
        it->modes |= module.modes;
        if (it->evaluation == kNoNode) it->evaluation = module.evaluation;
        changed = true;
      }
    }
    for (TrackedModule& module : into.modules) {
      const auto found = lowerBoundByName(from.modules, module.name);
      const bool inFrom = found != from.modules.end() && found->name == module.name;
      const uint8_t fallback = defaultModes(module.name);
      if (!inFrom && (module.modes | fallback) != module.modes) {
        module.modes |= fallback;
        changed = true;
      }
    }
    for (const ModuleOutput& output : from.outputs) changed |= addOutput(into, output);
    return changed;
  }
  ModeFact exceptionFact(NodeId, const Node&, const ModeFact& in) const { return in; }

  ModeFact transfer(NodeId id, const Node& node, const ModeFact& in) const {
    const Event& event = node.event;
    ModeFact out = in;
    switch (event.kind) {
    case EventKind::Eval:
      if (event.moduleMode) setModes(out, event.var.str(), kEvalMode, id);
      break;
    case EventKind::Train:
      if (event.moduleMode) setModes(out, event.var.str(), kTrainMode, id);
      break;
    case EventKind::Assign: assign(out, in, event, id); break;
    case EventKind::Call: call(out, in, event, id); break;
    default: break;
    }
    return out;
  }

  // The modes `name` may be in under `fact`.
  uint8_t modesOf(const ModeFact& fact, std::string_view name) const {
    const TrackedModule* module = find(fact, name);
    return module != nullptr ? module->modes : defaultModes(name);
  }
  const TrackedModule* find(const ModeFact& fact, std::string_view name) const {
    const auto it = lowerBoundByName(fact.modules, name);
    return it != fact.modules.end() && it->name == name ? &*it : nullptr;
  }

  // The caller's name of a module this unit names `name`: a parameter, or an attribute of one.
  bool callerArgument(std::string_view name, ModuleArgument& argument) const {
    constexpr std::string_view kReceiver = "self";
    if (method_ && (name == kReceiver || isAttributeOf(name, kReceiver))) {
      argument.argument = -1;
      argument.param.clear();
      argument.path = std::string(name.substr(kReceiver.size()));
      return true;
    }
    for (size_t i = 0; i < fn_.params.size(); ++i) {
      const std::string& param = fn_.params[i];
      if (param == "*" || !(name == param || isAttributeOf(name, param))) continue;
      argument.argument = static_cast<int32_t>(i);
      argument.param = param;
      argument.path = std::string(name.substr(param.size()));
      return true;
    }
    return false;
  }

  // The outputs `event` (a backward) differentiates.
  std::vector<const ModuleOutput*> consumed(const ModeFact& fact, const Event& event) const {
    std::vector<const ModuleOutput*> found;
    auto collect = [&](std::string_view name) {
      for (const ModuleOutput& output : fact.outputs) {
        if (output.name == name) found.push_back(&output);
      }
    };
    if (!event.var.empty()) {
      collect(event.var.str());
    } else {
      for (const InternedString& dep : event.sources().deps) collect(dep.str());
    }
    // `model(x).sum().backward()`: the module's call inside the backward's own expression.
    for (const ModuleOutput& output : fact.outputs) {
      if (!output.name.empty() || output.forward == kNoNode) continue;
      const SourceRange& call = fn_.nodes[output.forward].event.range;
      if (call.startByte >= event.range.startByte && call.endByte <= event.range.endByte) {
        found.push_back(&output);
      }
    }
    return found;
  }

private:
  uint8_t defaultModes(std::string_view name) const {
    ModuleArgument unused;
    return callerArgument(name, unused) ? kCallerMode : 0;
  }

  static bool addOutput(ModeFact& fact, const ModuleOutput& output) {
    auto it = std::lower_bound(fact.outputs.begin(), fact.outputs.end(), output,
                               [](const ModuleOutput& a, const ModuleOutput& b) {
                                 return std::tie(a.name, a.module) < std::tie(b.name, b.module);
                               });
    if (it != fact.outputs.end() && it->name == output.name && it->module == output.module) {
      if ((it->modes | output.modes) == it->modes) return false;
      it->modes |= output.modes;
      if (it->evaluation == kNoNode) it->evaluation = output.evaluation;
      return true;
    }
    fact.outputs.insert(it, output);
    return true;
  }

  // `name` and every tracked submodule below it are in `modes` from `at` on: `model.eval()`
  // switches every submodule too, `model.backbone.eval()` only that one.
  void setModes(ModeFact& fact, const std::string& name, uint8_t modes, NodeId at) const {
    if (name.empty()) return;
    const NodeId evaluation = modes & (kEvalMode | kEvaluated) ? at : kNoNode;
    bool found = false;
    for (TrackedModule& module : fact.modules) {
      if (!isPathUnder(module.name, name)) continue;
      module.modes = modes;
      module.evaluation = evaluation;
      found = found || module.name == name;
    }
    if (!found) {
      fact.modules.insert(lowerBoundByName(fact.modules, name), {name, modes, evaluation});
    }
  }

  // A rebinding makes a new object of the name and of every attribute path below it.
  void forget(ModeFact& fact, const std::string& name) const {
    std::erase_if(fact.outputs, [&](const ModuleOutput& o) { return isPathUnder(o.name, name); });
    if (defaultModes(name) != 0) {
      setModes(fact, name, 0, kNoNode); // an entry of zero shadows the caller's mode
      return;
    }
    for (TrackedModule& module : fact.modules) {
      if (isPathUnder(module.name, name)) module.modes = 0;
    }
  }

  void assign(ModeFact& out, const ModeFact& in, const Event& event, NodeId id) const {
    const std::string& target = event.var.str();
    if (target.empty()) return;
    std::vector<ModuleOutput> made;
    // `out = model(x)` lowers to the call (its target `out`) and then this definition: keep what
    // the call made, pointing at the call.
    for (const ModuleOutput& output : in.outputs) {
      // Also a call nested in the value (`loss_fn(model(x), y)`): made with no name.
      if ((output.name != target && !output.name.empty()) || output.forward == kNoNode) continue;
      const SourceRange& call = fn_.nodes[output.forward].event.range;
      if (call.startByte >= event.range.startByte && call.endByte <= event.range.endByte) {
        made.push_back(output);
        made.back().name = target;
      }
    }
    for (const InternedString& dep : event.sources().deps) {
      for (const ModuleOutput& output : in.outputs) {
        if (output.name != dep) continue;
        ModuleOutput copy = output;
        copy.name = target;
        made.push_back(std::move(copy));
      }
      // A module called inside the expression (`loss_fn(model(x), y)`): only names the unit
      // calls are modules, not every parameter read (`for x in loader`).
      const uint8_t modes = isCalled(dep.str()) ? modesOf(in, dep.str()) : 0;
      const bool fromCall = std::any_of(made.begin(), made.end(), [&](const ModuleOutput& o) {
        return o.module == dep;
      });
      if (modes != 0 && !fromCall && !event.regionDisablesGrad) {
        const TrackedModule* module = find(in, dep.str());
        made.push_back({target, dep.str(), modes, id,
                        module != nullptr ? module->evaluation : kNoNode});
      }
    }
    forget(out, target);
    std::erase_if(out.outputs, [](const ModuleOutput& o) { return o.name.empty(); });
    for (const ModuleOutput& output : made) addOutput(out, output);
  }

  bool isCalled(std::string_view name) const {
    return std::binary_search(called_.begin(), called_.end(), name);
  }

  void call(ModeFact& out, const ModeFact& in, const Event& event, NodeId id) const {
    if (const FunctionSummary* summary = table_.findFor(event)) {
      for (const ModuleArgument& target : summary->evaluatesArgs) {
        setModes(out, argumentName(event, target), kEvaluated, id);
      }
      for (const ModuleArgument& target : summary->trainModeArgs) {
        setModes(out, argumentName(event, target), kTrainMode, id);
      }
    }
    const std::string module(calledModule(event));
    const uint8_t modes = module.empty() ? 0 : modesOf(in, module);
    if (event.regionDisablesGrad) {
      // An evaluation pass: the module, or a helper given it, run with grad disabled.
      auto evaluated = [&](std::string_view name) {
        const auto it = lowerBoundByName(out.modules, name);
        if (it != out.modules.end() && it->name == name && (it->modes & kEvalMode) != 0) {
          it->modes = static_cast<uint8_t>((it->modes & ~kEvalMode) | kEvaluated);
        }
      };
      if (modes != 0) evaluated(module);
      for (const InternedString& arg : event.call().argVars) {
        if (!arg.empty()) evaluated(arg.str());
      }
      return;
    }
    if (modes != 0) {
      // With no target, the call is nested in an expression: its output has no name until the
      // assignment around it (or the backward) takes it.
      const TrackedModule* tracked = find(in, module);
      if (!event.var.empty()) forget(out, event.var.str());
      addOutput(out, {event.var.str(), module, modes, id,
                      tracked != nullptr ? tracked->evaluation : kNoNode});
    }
  }

  const FunctionIR& fn_;
  const SummaryTable& table_;
  bool method_ = false;
  std::vector<std::string> called_; // sorted: the names the unit calls (modules among them)
};

// Per node: whether an optimizer step is reachable from it (a backward then trains).
std::vector<bool> reachesStep(const FunctionIR& fn) {
  std::vector<std::vector<NodeId>> predecessors(fn.nodes.size());
  std::deque<NodeId> queue;
  std::vector<bool> reaches(fn.nodes.size(), false);
  for (NodeId id = 0; id < fn.nodes.size(); ++id) {
    for (NodeId succ : fn.nodes[id].succs) predecessors[succ].push_back(id);
    if (fn.nodes[id].exceptionSucc != kNoNode) {
      predecessors[fn.nodes[id].exceptionSucc].push_back(id);
    }
    if (fn.nodes[id].event.kind == EventKind::Step) {
      reaches[id] = true;
      queue.push_back(id);
    }
  }
  while (!queue.empty()) {
    const NodeId id = queue.front();
    queue.pop_front();
    for (NodeId pred : predecessors[id]) {
      if (reaches[pred]) continue;
      reaches[pred] = true;
      queue.push_back(pred);
    }
  }
  return reaches;
}

bool hasModuleModeEffects(const FunctionSummary& summary) {
  return !summary.evaluatesArgs.empty() || !summary.trainModeArgs.empty() ||
         !summary.trainsArgs.empty();
}

} // namespace

bool hasModuleModeEvents(const FunctionIR& fn, const SummaryTable& table) {
  for (const Node& node : fn.nodes) {
    const Event& event = node.event;
    if (((event.kind == EventKind::Eval || event.kind == EventKind::Train) && event.moduleMode) ||
        event.kind == EventKind::Backward) {
      return true;
    }
    if (event.kind == EventKind::Call) {
      const FunctionSummary* summary = table.findFor(event);
      if (summary != nullptr && hasModuleModeEffects(*summary)) return true;
    }
  }
  return false;
}

ModuleModeReport analyzeModuleMode(const FunctionIR& fn, const SummaryTable& table) {
  ModuleModeReport report;
  if (fn.entry == kNoNode || !hasModuleModeEvents(fn, table)) return report;
  ModeAnalysis analysis(fn, table);
  const auto flow = solveForward(fn, analysis);
  std::vector<bool> stepAfter; // computed on the first backward
  auto addTraining = [&](const std::string& module, NodeId training, NodeId evaluation) {
    const bool known =
        std::any_of(report.trainings.begin(), report.trainings.end(),
                    [&](const TrainingInEvalMode& t) {
                      return t.module == module && t.training == training;
                    });
    if (!known) report.trainings.push_back({module, training, evaluation});
  };
  for (NodeId id = 0; id < fn.nodes.size(); ++id) {
    if (!flow.reached[id]) continue;
    const Event& event = fn.nodes[id].event;
    const ModeFact& in = flow.in[id];
    if (event.kind == EventKind::Backward) {
      if (stepAfter.empty()) stepAfter = reachesStep(fn);
      if (!stepAfter[id]) continue; // a backward for input gradients, not a training step
      for (const ModuleOutput* output : analysis.consumed(in, event)) {
        if ((output->modes & kEvaluated) != 0) {
          addTraining(output->module, output->forward, output->evaluation);
        }
        ModuleArgument argument;
        if ((output->modes & kCallerMode) != 0 &&
            analysis.callerArgument(output->module, argument)) {
          insertSorted(report.trainsArgs, argument);
          // The earliest forward: the module's own call, before the loss function's.
          report.trainsAt = std::min(report.trainsAt, output->forward);
        }
      }
    } else if (event.kind == EventKind::Call) {
      const FunctionSummary* summary = table.findFor(event);
      if (summary == nullptr) continue;
      for (const ModuleArgument& target : summary->trainsArgs) {
        const std::string name = argumentName(event, target);
        if (name.empty()) continue;
        const uint8_t modes = analysis.modesOf(in, name);
        if ((modes & kEvaluated) != 0) {
          const auto* tracked = analysis.find(in, name);
          addTraining(name, id, tracked != nullptr ? tracked->evaluation : kNoNode);
        }
        ModuleArgument argument;
        if ((modes & kCallerMode) != 0 && analysis.callerArgument(name, argument)) {
          insertSorted(report.trainsArgs, argument);
          if (report.trainsAt == kNoNode) report.trainsAt = id;
        }
      }
    }
  }
  if (fn.normalExit != kNoNode && flow.reached[fn.normalExit]) {
    for (const TrackedModule& module : flow.in[fn.normalExit].modules) {
      ModuleArgument argument;
      if (!analysis.callerArgument(module.name, argument)) continue;
      if ((module.modes & kEvaluated) != 0) {
        insertSorted(report.evaluatesArgs, argument);
        if (report.evaluatesAt == kNoNode) report.evaluatesAt = module.evaluation;
      } else if (module.modes == kTrainMode) {
        insertSorted(report.trainModeArgs, argument);
      }
    }
  }
  std::sort(report.trainings.begin(), report.trainings.end(),
            [](const TrainingInEvalMode& a, const TrainingInEvalMode& b) {
              return a.training < b.training;
            });
  return report;
}

void summarizeModuleMode(const FunctionIR& fn, const SummaryTable& table, const std::string& path,
                         FunctionSummary& summary) {
  if (fn.params.empty() && fn.className.empty()) return; // nothing its caller passes in
  const ModuleModeReport report = analyzeModuleMode(fn, table);
  summary.evaluatesArgs = report.evaluatesArgs;
  summary.trainModeArgs = report.trainModeArgs;
  summary.trainsArgs = report.trainsArgs;
  // Point at the innermost cause: through a helper, the helper's own location.
  auto locate = [&](NodeId at, std::string& where, SourceRange& range, bool evaluation) {
    if (at == kNoNode) return;
    const Event& event = fn.nodes[at].event;
    const FunctionSummary* inner = event.kind == EventKind::Call ? table.findFor(event) : nullptr;
    const std::string& innerPath = inner == nullptr ? std::string()
                                   : evaluation     ? inner->evalPath
                                                    : inner->trainPath;
    if (!innerPath.empty()) {
      where = innerPath;
      range = evaluation ? inner->evalRange : inner->trainRange;
    } else {
      where = path;
      range = event.range;
    }
  };
  if (!summary.evaluatesArgs.empty()) {
    locate(report.evaluatesAt, summary.evalPath, summary.evalRange, /*evaluation=*/true);
  }
  if (!summary.trainsArgs.empty()) {
    locate(report.trainsAt, summary.trainPath, summary.trainRange, /*evaluation=*/false);
  }
}

} // namespace gradlint::ir
