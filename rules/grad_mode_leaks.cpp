#include "rules/grad_mode_leaks.h"

#include "checkers/catalog/grad_mode_api.h"

#include <fmt/format.h>

#include <algorithm>
#include <unordered_map>
#include <unordered_set>

namespace gradlint::rules {
namespace {

using ir::EventKind;

std::string valueText(const ir::Event& event) {
  switch (event.value) {
  case ir::GradValue::Enabled: return "True";
  case ir::GradValue::Disabled: return "False";
  case ir::GradValue::Unknown: return "...";
  }
  return "...";
}

std::string witnessDetail(const ir::FunctionIR& fn, ir::NodeId id, ir::Language language) {
  const ir::Event& event = fn.nodes[id].event;
  switch (event.kind) {
  case EventKind::SetGrad:
    return fmt::format("grad mode set by {}", describeToggle(fn, id, language));
  case EventKind::SaveGrad: return fmt::format("grad mode saved in `{}`", event.var);
  case EventKind::RestoreGrad: return fmt::format("grad mode restored from `{}`", event.var);
  case EventKind::Call:
    return event.callee.empty() ? std::string("call (may raise)")
                                : fmt::format("call to `{}`", event.callee);
  case EventKind::EnterGuard: return "enter context";
  case EventKind::ExitGuard: return "exit context";
  case EventKind::Return: return fmt::format("`{}` returns", displayName(fn));
  case EventKind::FallThrough: return fmt::format("end of `{}`", displayName(fn));
  case EventKind::Yield: return fmt::format("`{}` yields to its caller", displayName(fn));
  case EventKind::Await: return fmt::format("`{}` suspends at await", displayName(fn));
  case EventKind::Raise: return "raise";
  case EventKind::ExceptionalExit: return "exception propagates to the caller";
  default: return std::string(ir::toString(event.kind));
  }
}

} // namespace

const ir::FunctionIR* exitThatKeepsEnterMode(RuleContext& context, const ir::FunctionIR& enter) {
  const bool async = enter.name == "__aenter__";
  if ((!async && enter.name != "__enter__") || enter.qualifiedName.empty()) return nullptr;
  const std::string exitName =
      enter.qualifiedName.substr(0, enter.qualifiedName.size() - enter.name.size()) +
      (async ? "__aexit__" : "__exit__");
  const ir::FunctionIR* exit = nullptr;
  for (const ir::FunctionIR& unit : context.module().units) {
    if (unit.kind == ir::UnitKind::Function && unit.qualifiedName == exitName) exit = &unit;
  }
  // Inherited (from a base class we do not see), or not analysed: taken to restore.
  if (exit == nullptr || exit->entry == ir::kNoNode) return nullptr;
  return ir::exitKeepsEnterMode(*exit, context.summaries()) ? exit : nullptr;
}

bool initIsEnterHalf(RuleContext& context, const ir::FunctionIR& init) {
  if (init.name != "__init__" || init.className.empty() || init.qualifiedName.empty()) {
    return false;
  }
  const std::string prefix =
      init.qualifiedName.substr(0, init.qualifiedName.size() - init.name.size());
  for (const ir::FunctionIR& unit : context.module().units) {
    if (unit.kind != ir::UnitKind::Function || unit.entry == ir::kNoNode ||
        (unit.qualifiedName != prefix + "__exit__" && unit.qualifiedName != prefix + "__aexit__")) {
      continue;
    }
    return !ir::exitKeepsEnterMode(unit, context.summaries());
  }
  return false; // no `__exit__` of its own: not a context manager we can see
}

bool isClassWithEvent(const ir::Event& event) {
  return (event.kind == EventKind::EnterGuard || event.kind == EventKind::ExitGuard) &&
         event.guard == ir::GuardKind::Other && !event.callee.empty();
}

std::string_view shortName(std::string_view qualified) {
  const size_t dot = qualified.rfind('.');
  if (dot != std::string_view::npos) return qualified.substr(dot + 1);
  const size_t scope = qualified.rfind("::");
  return scope == std::string_view::npos ? qualified : qualified.substr(scope + 2);
}

std::string displayName(const ir::FunctionIR& fn) {
  if (fn.kind == ir::UnitKind::Function && !fn.className.empty()) {
    return fn.className + "." + fn.name;
  }
  return fn.name;
}

std::string describeToggle(const ir::FunctionIR& fn, ir::NodeId toggle, ir::Language language) {
  const ir::Event& event = fn.nodes[toggle].event;
  if (event.kind == EventKind::Call && event.importsModule) {
    return fmt::format("importing `{}`", event.callee);
  }
  if (event.kind == EventKind::Call) return fmt::format("`{}()`", shortName(event.callee));
  if (isClassWithEvent(event)) return fmt::format("`with {}()`", shortName(event.callee));
  if (language == ir::Language::Cpp) {
    // As written: `at::GradMode::set_enabled(false)`, `c10::GradMode::set_enabled(mode)`.
    const std::string& callee = event.spelled.empty() ? event.callee : event.spelled;
    const std::vector<ir::InternedString>& argVars = event.call().argVars;
    std::string argument = argVars.empty() ? std::string() : argVars.front().str();
    if (argument.empty()) {
      argument = event.value == ir::GradValue::Enabled    ? "true"
                 : event.value == ir::GradValue::Disabled ? "false"
                                                          : "...";
    }
    return fmt::format("`{}({})`", callee, argument);
  }
  if (event.flavor == ir::ApiFlavor::ContextEnteredByHand) {
    return fmt::format("`{}().__enter__()`", event.callee);
  }
  return fmt::format("`{}({})`", event.callee, valueText(event));
}

std::optional<FalseModeArgument> falseModeArgument(const ir::SummaryTable& table,
                                                   const ir::Event& call) {
  const ir::FunctionSummary* summary = table.findFor(call);
  if (summary == nullptr || summary->mayLeaveDisabled) return std::nullopt;
  for (size_t k = 0; k < summary->restoresArgs.size(); ++k) {
    const ir::ModeArgument argument = ir::modeArgument(call, *summary, k);
    if (argument.kind != ir::ModeArgument::Kind::False) continue;
    FalseModeArgument found;
    found.param = k < summary->restoresParams.size() ? summary->restoresParams[k] : "";
    found.byDefault = argument.byDefault;
    return found;
  }
  return std::nullopt;
}

ImportChain importChain(const ir::SummaryTable& table, const ir::Event& import) {
  ImportChain chain;
  if (!import.importsModule) return chain;
  std::unordered_set<std::string> seen{import.callee};
  const ir::FunctionSummary* summary = table.findFor(import);
  if (summary != nullptr) chain.importedOrigin = summary->moduleOrigin;
  // One step per module, never back to one seen: a cycle of imports ends the walk.
  while (summary != nullptr && !summary->importVia.empty() &&
         seen.insert(summary->importVia).second) {
    if (chain.modules.size() == kMaxImportChain) {
      chain.cut = true;
      break;
    }
    chain.modules.push_back(summary->importVia);
    summary = table.find(summary->importVia);
    if (summary != nullptr && !summary->moduleTopLevel) summary = nullptr;
    chain.origins.push_back(summary != nullptr ? summary->moduleOrigin : std::string());
  }
  return chain;
}

std::string importChainText(const ImportChain& chain, std::string_view effect) {
  constexpr size_t kShown = 6;
  const std::vector<std::string>& modules = chain.modules;
  std::string text;
  for (size_t i = 0; i < modules.size(); ++i) {
    if (i == kShown && (chain.cut || modules.size() > kShown + 1)) {
      if (chain.cut) {
        return text + fmt::format(", and more than {} further imports reach a module whose top "
                                  "level {}",
                                  modules.size() - kShown, effect);
      }
      return text + fmt::format(", and {} more imports reach `{}`, whose top level {}",
                                modules.size() - 1 - kShown, modules.back(), effect);
    }
    text += i == 0 ? "it imports `" : ", which imports `";
    text += modules[i];
    text += '`';
    // Where the chain enters another distribution, it says which (and its version).
    const std::string& origin = i < chain.origins.size() ? chain.origins[i] : std::string();
    const std::string& before = i == 0 ? chain.importedOrigin : chain.origins[i - 1];
    if (!origin.empty() && origin != before) text += " (" + origin + ")";
  }
  return text + fmt::format(", whose top level {}", effect);
}

std::vector<ir::Leak> reportableLeaks(RuleContext& context, size_t unitIndex) {
  const ir::FunctionIR& fn = context.module().units[unitIndex];
  if (fn.kind == ir::UnitKind::ScriptMain || fn.entry == ir::kNoNode) return {};
  // The enter half of a context manager leaves the mode for its exit half to restore, unless
  // that `__exit__` never does: then the mode leaks at the end of every `with` block.
  // So does a thread's body (the Python lowering marks it enterHalf too): the mode it leaves
  // ends with its thread, and the caller's thread has its own.
  if (fn.enterHalf) return {};
  if ((fn.name == "__enter__" || fn.name == "__aenter__") &&
      exitThatKeepsEnterMode(context, fn) == nullptr) {
    return {};
  }
  // So is an `__init__` that switches the mode for its class's `__exit__` to restore (the
  // pattern of `torch.set_grad_enabled`): correct in a `with`. Where the instance is used
  // otherwise (a decorator whose `__call__` does not put the mode back, a bare `Cls()`), the
  // use is the leak, and is reported there (the class's summary is its `__init__`'s).
  if (initIsEnterHalf(context, fn)) return {};
  const ir::GradStateReport& report = context.gradState(unitIndex);
  const ir::FunctionSummary* summary =
      fn.qualifiedName.empty() ? nullptr : context.summaries().find(fn.qualifiedName);
  const bool delegates = summary != nullptr && summary->mayLeaveDisabled && fn.isPrivate() &&
                         context.summaries().callerCount(fn.qualifiedName) > 0;
  const bool contextManager =
      std::any_of(fn.decorators.begin(), fn.decorators.end(),
                  [](const std::string& d) { return catalog::isContextManagerDecorator(d); });
  // A toggle that leaks on a normal path does not restore at all: exception safety (GL104) is
  // no question for it, even when its callers take over the report (`_disable_autograd()`).
  auto leaksNormally = [&](const ir::Leak& leak) {
    return std::any_of(report.leaks.begin(), report.leaks.end(), [&](const ir::Leak& other) {
      return !other.exceptional && fn.nodes[other.toggle].event.range.startByte ==
                                       fn.nodes[leak.toggle].event.range.startByte;
    });
  };
  std::vector<ir::Leak> leaks;
  for (const ir::Leak& leak : report.leaks) {
    if (leak.exceptional && delegates && leaksNormally(leak)) continue;
    const ir::Event& toggle = fn.nodes[leak.toggle].event;
    if (toggle.kind == EventKind::SetGrad && toggle.flavor == ir::ApiFlavor::ContextEnteredByHand) {
      continue;
    }
    // A class body of this module that leaves the mode changed: the body's own toggle is the
    // report (its importers see the effect through the module's summary).
    if (ir::runsClassBody(toggle)) continue;
    const EventKind exit = fn.nodes[leak.exit].event.kind;
    const bool suspends = exit == EventKind::Yield || exit == EventKind::Await;
    if (!leak.exceptional && suspends && contextManager) continue; // yielding is the point
    if (!leak.exceptional && !suspends && delegates) continue; // its callers are reported
    leaks.push_back(leak);
  }
  // A toggle reported as a normal leak needs no GL104 too. Copies of a `finally` body hold
  // copies of its toggles: compare by source position, not node.
  auto sameToggle = [&](const ir::Leak& a, const ir::Leak& b) {
    return fn.nodes[a.toggle].event.range.startByte == fn.nodes[b.toggle].event.range.startByte;
  };
  std::vector<ir::Leak> kept;
  for (const ir::Leak& leak : leaks) {
    const bool shadowed =
        leak.exceptional && std::any_of(leaks.begin(), leaks.end(), [&](const ir::Leak& other) {
          return !other.exceptional && sameToggle(leak, other);
        });
    const bool duplicate = std::any_of(kept.begin(), kept.end(), [&](const ir::Leak& other) {
      return other.exceptional == leak.exceptional && sameToggle(leak, other);
    });
    if (!shadowed && !duplicate) kept.push_back(leak);
  }
  return kept;
}

namespace {

bool trainsItself(const ir::Event& event) {
  return event.kind == EventKind::Backward || event.kind == EventKind::Step;
}

// Outside every grad-mode with-block and decorator: the mode there is the one the code inherits.
bool outsideGradRegions(const ir::Event& event) { return event.region == ir::GuardKind::Other; }

} // namespace

std::vector<ir::NodeId> addWitness(RuleContext& context, size_t unitIndex, ir::NodeId toggle,
                                   ir::NodeId target, Diagnostic& diagnostic) {
  const ir::FunctionIR& fn = context.module().units[unitIndex];
  const ir::GradStateReport& report = context.gradState(unitIndex);
  const std::vector<ir::NodeId> path = ir::witnessPath(fn, report.flow, toggle, target);
  constexpr size_t kMaxWitnessSteps = 24;
  for (ir::NodeId id : path) {
    const EventKind kind = fn.nodes[id].event.kind;
    if (kind == EventKind::Nop || kind == EventKind::Entry || kind == EventKind::NormalExit) {
      continue;
    }
    if (diagnostic.witness.size() == kMaxWitnessSteps) break;
    const ir::SourceRange range =
        kind == EventKind::ExceptionalExit ? fn.nameRange : fn.nodes[id].event.range;
    diagnostic.witness.push_back({kind, range, witnessDetail(fn, id, context.module().language)});
  }
  return path;
}

std::vector<SessionLeak> sessionLeaks(RuleContext& context, size_t unitIndex) {
  const ir::ModuleIR& module = context.module();
  const ir::FunctionIR& session = module.units[unitIndex];
  if (!module.topLevelIsSession || session.kind != ir::UnitKind::Module) return {};
  // The module's functions that train with the grad mode of their caller: a backward or step
  // reached with the inherited mode, directly or through a call of another such function.
  // Found backwards over the module's call edges from the functions that train themselves.
  std::unordered_map<std::string_view, size_t> unitByName;
  for (size_t i = 0; i < module.units.size(); ++i) {
    const ir::FunctionIR& fn = module.units[i];
    if (fn.kind == ir::UnitKind::Function && !fn.qualifiedName.empty()) {
      unitByName.emplace(fn.qualifiedName, i);
    }
  }
  std::vector<std::string> trainingVia(module.units.size()); // "" : does not train
  std::vector<std::vector<std::pair<size_t, ir::NodeId>>> callers(module.units.size());
  std::vector<size_t> worklist;
  for (const auto& [name, index] : unitByName) {
    const ir::FunctionIR& fn = module.units[index];
    const ir::GradStateReport& report = context.gradState(index);
    for (ir::NodeId id = 0; id < fn.nodes.size(); ++id) {
      const ir::Event& event = fn.nodes[id].event;
      if (!report.flow.reached[id] || !ir::callerDecides(report.flow.in[id]) ||
          !outsideGradRegions(event)) {
        continue;
      }
      if (trainsItself(event) && trainingVia[index].empty()) {
        trainingVia[index] = event.kind == EventKind::Backward ? "backward()" : "step()";
        worklist.push_back(index);
      } else if (event.kind == EventKind::Call) {
        const auto callee = unitByName.find(event.callee);
        if (callee != unitByName.end()) callers[callee->second].emplace_back(index, id);
      }
    }
  }
  while (!worklist.empty()) {
    const size_t callee = worklist.back();
    worklist.pop_back();
    for (const auto& [caller, node] : callers[callee]) {
      if (!trainingVia[caller].empty()) continue;
      trainingVia[caller] = trainingVia[callee];
      worklist.push_back(caller);
    }
  }

  const ir::GradStateReport& report = context.gradState(unitIndex);
  std::vector<SessionLeak> leaks;
  for (ir::NodeId id = 0; id < session.nodes.size(); ++id) {
    const ir::Event& event = session.nodes[id].event;
    if (!report.flow.reached[id] || report.flow.in[id].open.empty() ||
        !outsideGradRegions(event)) {
      continue;
    }
    std::string what;
    if (trainsItself(event)) {
      what = event.kind == EventKind::Backward ? "`backward()`" : "`step()`";
    } else if (event.kind == EventKind::Call) {
      const auto callee = unitByName.find(event.callee);
      if (callee == unitByName.end() || trainingVia[callee->second].empty()) continue;
      what = fmt::format("`{}()` (which runs `{}`)", shortName(event.callee),
                         trainingVia[callee->second]);
    } else {
      continue;
    }
    for (ir::NodeId toggle : report.flow.in[id].open) {
      const bool seen = std::any_of(leaks.begin(), leaks.end(),
                                    [&](const SessionLeak& leak) { return leak.toggle == toggle; });
      if (!seen) leaks.push_back({toggle, id, what});
    }
  }
  // Copies of a `finally` body hold copies of a toggle: one report per position.
  std::vector<SessionLeak> kept;
  for (const SessionLeak& leak : leaks) {
    const uint32_t at = session.nodes[leak.toggle].event.range.startByte;
    const bool duplicate = std::any_of(kept.begin(), kept.end(), [&](const SessionLeak& other) {
      return session.nodes[other.toggle].event.range.startByte == at;
    });
    const ir::Event& toggle = session.nodes[leak.toggle].event;
    const bool byHand =
        toggle.kind == EventKind::SetGrad && toggle.flavor == ir::ApiFlavor::ContextEnteredByHand;
    if (!duplicate && !byHand) kept.push_back(leak);
  }
  return kept;
}

Diagnostic leakDiagnostic(RuleContext& context, size_t unitIndex, const ir::Leak& leak) {
  const ir::FunctionIR& fn = context.module().units[unitIndex];
  const ir::Event& toggle = fn.nodes[leak.toggle].event;
  Diagnostic diagnostic;
  diagnostic.range = toggle.range;
  const std::vector<ir::NodeId> path = addWitness(context, unitIndex, leak.toggle, leak.exit,
                                                  diagnostic);

  // A call, or the start or end of `with C():` (its `__enter__` or `__exit__`): where inside it
  // the mode is turned off.
  const ir::FunctionSummary* summary = nullptr;
  std::string who;
  std::string how = "disables grad mode";
  if (toggle.kind == EventKind::Call) {
    summary = context.summaries().findFor(toggle);
    if (toggle.importsModule) {
      // Through imports of its own: the module whose top level it is.
      const ImportChain chain = importChain(context.summaries(), toggle);
      who = chain.cut ? std::string("the top level of a module it imports")
                      : fmt::format("the top level of `{}`", chain.modules.empty()
                                                                 ? toggle.callee.str()
                                                                 : chain.modules.back());
    } else {
      who = fmt::format("`{}`", shortName(toggle.callee));
    }
    if (const auto argument = falseModeArgument(context.summaries(), toggle)) {
      how = fmt::format("sets grad mode from its `{}` parameter", argument->param);
    }
  } else if (isClassWithEvent(toggle)) {
    const char* method = toggle.kind == EventKind::EnterGuard ? "__enter__" : "__exit__";
    summary = context.summaries().find(toggle.callee.str() + "." + method);
    who = fmt::format("`{}.{}`", shortName(toggle.callee), method);
  }
  if (summary != nullptr && !summary->togglePath.empty()) {
    diagnostic.related.push_back(
        {summary->togglePath == context.module().path ? std::string() : summary->togglePath,
         summary->toggleRange,
         fmt::format("{} {} here{}", who, how,
                     summary->toggleOrigin.empty()
                         ? std::string()
                         : fmt::format(" (installed: {})", summary->toggleOrigin))});
  }
  if (leak.exceptional) {
    // Point at the first call on the path that can raise before the restore.
    for (ir::NodeId id : path) {
      const ir::Node& node = fn.nodes[id];
      if (id != leak.toggle && node.exceptionSucc != ir::kNoNode) {
        diagnostic.related.push_back(
            {std::string(), node.event.range,
             "an exception raised here leaves grad mode disabled"});
        break;
      }
    }
  } else {
    const ir::Event& exit = fn.nodes[leak.exit].event;
    std::string what;
    switch (exit.kind) {
    case EventKind::Yield: what = "yields"; break;
    case EventKind::Await: what = "suspends at this await"; break;
    case EventKind::FallThrough: what = "reaches the end"; break;
    default: what = "returns"; break;
    }
    diagnostic.related.push_back(
        {std::string(), exit.range,
         fn.kind == ir::UnitKind::Module
             ? std::string("grad mode is still disabled when the module finishes importing")
             : fmt::format("grad mode is still disabled when `{}` {} here", displayName(fn),
                           what)});
  }
  return diagnostic;
}

} // namespace gradlint::rules
