#include "checkers/ir/summaries.h"

#include "checkers/ir/module_mode.h"
#include "checkers/ir/placement.h"

#include <algorithm>
#include <deque>
#include <iterator>
#include <numeric>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

namespace gradlint::ir {
namespace {

bool touchesGradMode(const FunctionIR& fn, const SummaryTable& table) {
  if (fn.decoratorRegion.use != DecoratorUse::None) return true; // its uses read its summary
  for (const Node& node : fn.nodes) {
    switch (node.event.kind) {
    case EventKind::SetGrad:
    case EventKind::SaveGrad:
    case EventKind::RestoreGrad:
    case EventKind::RestoreArg:
    case EventKind::ZeroGrad:
    case EventKind::Offload:
    case EventKind::Backward: return true; // module mode: it may train what the caller passes
    case EventKind::Eval:
    case EventKind::Train:
      if (node.event.moduleMode) return true;
      break;
    case EventKind::Call:
      if (!node.event.callee.empty() && table.find(node.event.callee) != nullptr) return true;
      break;
    default: break;
    }
  }
  return false;
}

bool touchesGradMode(const UnitDigest& digest, const SummaryTable& table) {
  for (const EventKind kind : {EventKind::SetGrad, EventKind::SaveGrad, EventKind::RestoreGrad,
                               EventKind::RestoreArg, EventKind::ZeroGrad, EventKind::Offload,
                               EventKind::Backward, EventKind::Eval}) {
    if (digest.has(kind)) return true;
  }
  return std::any_of(digest.calls.begin(), digest.calls.end(), [&](const UnitDigest::Call& call) {
    return call.kind == EventKind::Call && table.find(call.callee) != nullptr;
  });
}

// exitKeepsEnterMode of a digest.
bool exitKeepsEnterMode(const UnitDigest& exit, const SummaryTable& table) {
  if (exit.has(EventKind::SetGrad) || exit.has(EventKind::RestoreGrad) ||
      exit.has(EventKind::RestoreArg)) {
    return false;
  }
  if (exit.handsOverExit) return false;
  for (const UnitDigest::Call& call : exit.calls) {
    if (call.kind != EventKind::Call) continue;
    const FunctionSummary* summary = table.find(call.callee);
    if (summary != nullptr && summary->moduleTopLevel == call.importsModule &&
        (summary->restoresOuterMode || !summary->mayLeaveInherited ||
         !summary->restoresArgs.empty())) {
      return false;
    }
  }
  return true;
}

// Whether some return of `fn` hands back an object with hooks: a name (or a move or wrapper
// of one) the placement analysis has offloaded there, or what a helper returning such an object
// returned. A definite offload on one return beats an automatic map's "may" on another.
void summarizeReturnedOffloads(const FunctionIR& fn, const SummaryTable& table,
                               const std::string& path, const StableAliases& aliases,
                               const DataflowResult<PlacementFact>& flow,
                               FunctionSummary& summary) {
  auto note = [&](bool mayOffload, bool deviceMap, const std::string& where,
                  const SourceRange& range, const std::string& what) {
    if (summary.returnsOffloaded && (mayOffload || !summary.returnedMayOffload)) return;
    summary.returnsOffloaded = true;
    summary.returnedMayOffload = mayOffload;
    summary.returnedDeviceMap = deviceMap;
    summary.returnedOffloadPath = where;
    summary.returnedOffloadRange = range;
    summary.returnedOffloadText = what;
  };
  for (NodeId id = 0; id < fn.nodes.size(); ++id) {
    const Event& event = fn.nodes[id].event;
    if (event.kind != EventKind::Return || !flow.reached[id]) continue;
    if (!event.var.empty()) {
      const std::string returned = aliases.resolve(event.var);
      for (const OffloadedObject& object : flow.in[id].offloaded) {
        if (!relatedPaths(object.path, returned)) continue;
        const bool inner = !object.innerText.empty();
        note(object.mayOffload, object.deviceMap, inner ? object.innerPath : path,
             inner ? object.innerRange : object.offload, inner ? object.innerText : object.how);
      }
    }
    if (const FunctionSummary* callee = event.callee.empty() ? nullptr : table.find(event.callee);
        callee != nullptr && callee->returnsOffloaded) {
      note(callee->returnedMayOffload, callee->returnedDeviceMap, callee->returnedOffloadPath,
           callee->returnedOffloadRange, callee->returnedOffloadText);
    }
  }
}

// Which arguments `fn` leaves with offload hooks when it returns: an argument offloaded itself,
// or as a component of something offloaded (`Pipeline(unet=unet).enable_model_cpu_offload()`).
// A helper that takes the hooks off again before returning (a validation pass) leaves its
// argument as it found it. Only definite offloads count, not device_map="auto" loads.
void summarizeOffloads(const FunctionIR& fn, const SummaryTable& table, const std::string& path,
                       FunctionSummary& summary) {
  if (fn.normalExit == kNoNode || !hasPlacementEvents(fn, table)) return;
  const StableAliases aliases(fn);
  const auto flow = analyzePlacement(fn, table, aliases, {}, /*trackArguments=*/true);
  if (!flow.reached[fn.normalExit]) return;
  summarizeReturnedOffloads(fn, table, path, aliases, flow, summary);
  for (const OffloadedObject& object : flow.in[fn.normalExit].offloaded) {
    if (object.argument < 0 || object.mayOffload ||
        std::find(summary.offloadsArgs.begin(), summary.offloadsArgs.end(), object.argument) !=
            summary.offloadsArgs.end()) {
      continue;
    }
    summary.offloadsArgs.push_back(object.argument);
    summary.offloadsParams.push_back(fn.params[static_cast<size_t>(object.argument)]);
    if (summary.offloadText.empty()) {
      const bool inner = !object.innerText.empty();
      summary.offloadPath = inner ? object.innerPath : path;
      summary.offloadRange = inner ? object.innerRange : object.offload;
      summary.offloadText = inner ? object.innerText : object.how;
    }
  }
}

// A name that stands for another's summary: a class for its `__init__`, a re-export for what it
// imports.
struct NameLink {
  std::string name;
  std::string target;
};

// `from .checker import Checker` in `pkg/__init__.py`: `pkg.Checker` is `pkg.checker.Checker`.
// Names defined in the run are their own definitions, never links.
std::vector<NameLink> reexportLinks(const std::vector<const ModuleIR*>& modules,
                                    const std::unordered_map<std::string, int>& definitions) {
  std::vector<NameLink> links;
  for (const ModuleIR* module : modules) {
    if (module->moduleName.empty()) continue;
    for (const auto& [name, target] : module->reexports) {
      std::string qualified = module->moduleName + "." + name;
      if (qualified == target || definitions.count(qualified) != 0) continue;
      links.push_back({std::move(qualified), target});
    }
  }
  return links;
}

// The methods that make a class's calls, `with` blocks and decorator uses change grad mode.
constexpr std::string_view kContextMethods[] = {"__enter__", "__exit__", "__call__"};

// A class's own `__exit__`, whole or as a digest.
struct ExitUnit {
  const FunctionIR* fn;
  const UnitDigest* digest; // null: fn has its nodes
};

// Gives class `name` its constructor's summary (without the returned mode: `Cls()` returns the
// instance), marked as a context class when its `with` or decorator methods have summaries.
// Returns whether the class has effects (its summary was stored); `changed` says whether the
// stored summary changed.
bool updateClass(SummaryTable& table, const std::string& name,
                 const std::unordered_map<std::string, ExitUnit>& exits, bool& changed) {
  changed = false;
  const FunctionSummary* init = table.find(name + ".__init__");
  bool context = false;
  for (std::string_view method : kContextMethods) {
    context = context || table.find(name + "." + std::string(method)) != nullptr;
  }
  FunctionSummary summary = init != nullptr ? *init : FunctionSummary();
  summary.returnsSavedMode = false;
  summary.restoresOuterMode = false;
  summary.contextClass = context;
  const auto exit = exits.find(name);
  summary.exitKeepsMode = context && exit != exits.end() && exit->second.fn->entry != kNoNode &&
                          table.find(name + ".__exit__") == nullptr &&
                          (exit->second.digest != nullptr
                               ? exitKeepsEnterMode(*exit->second.digest, table)
                               : exitKeepsEnterMode(*exit->second.fn, table));
  if (!summary.affectsCallers()) return false;
  changed = table.update(name, summary);
  return true;
}

// What importing a module does to the importer: only a grad mode its top level leaves
// disabled (a module that raises at import is not "never returns" for the importer's analysis).
FunctionSummary importEffect(const FunctionSummary& topLevel) {
  FunctionSummary effect;
  effect.mayLeaveDisabled = topLevel.mayLeaveDisabled;
  effect.togglePath = topLevel.togglePath;
  effect.toggleRange = topLevel.toggleRange;
  effect.toggleText = topLevel.toggleText;
  effect.toggleOrigin = topLevel.toggleOrigin;
  effect.importVia = topLevel.importVia;
  effect.moduleTopLevel = true;
  return effect;
}

} // namespace

bool exitKeepsEnterMode(const FunctionIR& exit, const SummaryTable& table) {
  for (const Node& node : exit.nodes) {
    const Event& event = node.event;
    switch (event.kind) {
    case EventKind::SetGrad:
    case EventKind::RestoreGrad:
    case EventKind::RestoreArg: return false;
    case EventKind::Call: {
      // `super().__exit__(...)`, `self._ctx.__exit__(...)`: whatever those restore.
      if (event.spelled.find("__exit__") != std::string::npos ||
          event.spelled.find("super(") != std::string::npos) {
        return false;
      }
      const FunctionSummary* summary = table.findFor(event);
      if (summary != nullptr && (summary->restoresOuterMode || !summary->mayLeaveInherited ||
                                 !summary->restoresArgs.empty())) {
        return false;
      }
      break;
    }
    default: break;
    }
  }
  return true;
}

UnitDigest digestUnit(const FunctionIR& fn) {
  static_assert(static_cast<unsigned>(EventKind::Assume) < 64, "UnitDigest::kinds has 64 bits");
  UnitDigest digest;
  for (const Node& node : fn.nodes) {
    const Event& event = node.event;
    digest.kinds |= uint64_t{1} << static_cast<unsigned>(event.kind);
    if (event.kind != EventKind::Call && event.kind != EventKind::EnterGuard &&
        event.kind != EventKind::ExitGuard) {
      continue;
    }
    if (event.kind == EventKind::Call && (event.spelled.find("__exit__") != std::string::npos ||
                                          event.spelled.find("super(") != std::string::npos)) {
      digest.handsOverExit = true;
    }
    if (event.callee.empty()) continue;
    digest.calls.push_back(
        {event.callee, event.kind, event.importsModule, event.regionDisablesGrad});
  }
  digest.calls.shrink_to_fit();
  return digest;
}

bool isSummarisable(const FunctionIR& fn) {
  return fn.kind == UnitKind::Function && !fn.isGenerator && !fn.isAsync &&
         !fn.qualifiedName.empty() && fn.entry != kNoNode;
}

FunctionSummary summarize(const FunctionIR& fn, const GradStateReport& report,
                          const SummaryTable& table, const std::string& path,
                          const std::string& origin) {
  FunctionSummary summary;
  summary.mayLeaveInherited = false;
  bool anyReturn = false;
  NodeId rootToggle = kNoNode;
  for (NodeId id = 0; id < fn.nodes.size(); ++id) {
    if (!report.flow.reached[id]) continue;
    const Event& event = fn.nodes[id].event;
    const GradFact& in = report.flow.in[id];
    summary.resetsGradients = summary.resetsGradients || event.kind == EventKind::ZeroGrad;
    if (event.kind == EventKind::Call && !event.callee.empty()) {
      if (const FunctionSummary* callee = table.findFor(event)) {
        summary.resetsGradients = summary.resetsGradients || callee->resetsGradients;
      }
    }
    // A restore of a mode this function did not save: one saved by another method.
    if (event.kind == EventKind::RestoreGrad &&
        std::none_of(in.saved.begin(), in.saved.end(),
                     [&](const SavedMode& s) { return s.var == event.var; })) {
      summary.restoresOuterMode = true;
    }
    if (event.kind != EventKind::Return && event.kind != EventKind::FallThrough) continue;
    anyReturn = true;
    summary.mayLeaveInherited = summary.mayLeaveInherited || in.inherited;
    summary.mayLeaveEnabled = summary.mayLeaveEnabled || in.mayBeEnabled;
    for (const int32_t param : in.fromArgs) {
      if (std::find(summary.restoresArgs.begin(), summary.restoresArgs.end(), param) ==
          summary.restoresArgs.end()) {
        summary.restoresArgs.push_back(param);
      }
    }
    if (!in.open.empty()) {
      summary.mayLeaveDisabled = true;
      if (rootToggle == kNoNode) rootToggle = in.open.front();
    }
    if (event.kind == EventKind::Return && !event.var.empty()) {
      const bool saved = std::any_of(in.saved.begin(), in.saved.end(),
                                     [&](const SavedMode& s) { return s.var == event.var; });
      summary.returnsSavedMode = summary.returnsSavedMode || saved;
    }
  }
  if (!anyReturn) summary.mayLeaveInherited = true; // always raises: no effect on callers
  summarizeOffloads(fn, table, path, summary);
  summarizeModuleMode(fn, table, path, summary);
  summary.decoratorRegion = fn.decoratorRegion;
  std::sort(summary.restoresArgs.begin(), summary.restoresArgs.end());
  for (const int param : summary.restoresArgs) {
    const auto at = static_cast<size_t>(param);
    summary.restoresParams.push_back(at < fn.params.size() ? fn.params[at] : std::string());
    summary.restoresDefaults.push_back(at < fn.paramDefaults.size() ? fn.paramDefaults[at] : -1);
  }
  if (!summary.restoresArgs.empty()) summary.positionalParams = fn.positionalParams;
  if (rootToggle == kNoNode && !summary.restoresArgs.empty()) {
    // No toggle of its own: point at where it sets the mode from a parameter (through helpers
    // it hands the parameter to, the innermost one), for a caller that passes False.
    for (NodeId id = 0; id < fn.nodes.size() && rootToggle == kNoNode; ++id) {
      const Event& event = fn.nodes[id].event;
      if (!report.flow.reached[id]) continue;
      if (event.kind == EventKind::RestoreArg &&
          std::binary_search(summary.restoresArgs.begin(), summary.restoresArgs.end(),
                             event.argIndex)) {
        rootToggle = id;
      } else if (event.kind == EventKind::Call) {
        const FunctionSummary* inner = table.findFor(event);
        if (inner != nullptr && !inner->restoresArgs.empty() && !inner->togglePath.empty()) {
          rootToggle = id;
        }
      }
    }
  }
  if (rootToggle != kNoNode) {
    // Point at the root cause: through a chain of helpers, the toggle that started it.
    const Event& toggle = fn.nodes[rootToggle].event;
    const FunctionSummary* inner =
        toggle.kind == EventKind::Call ? table.findFor(toggle) : nullptr;
    if (inner != nullptr && !inner->togglePath.empty()) {
      summary.togglePath = inner->togglePath;
      summary.toggleRange = inner->toggleRange;
      summary.toggleText = inner->toggleText;
      summary.toggleOrigin = inner->toggleOrigin;
      if (toggle.importsModule) summary.importVia = toggle.callee;
    } else {
      summary.togglePath = path;
      summary.toggleRange = toggle.range;
      summary.toggleText = toggle.callee;
      summary.toggleOrigin = origin;
    }
  }
  return summary;
}

SummaryTable computeSummaries(const std::vector<const ModuleIR*>& modules,
                              GradStateReports* reports, const SummaryTable* known,
                              DroppedUnits* dropped) {
  SummaryTable table = known != nullptr ? *known : SummaryTable();
  auto digestOf = [&](const ModuleIR& module, const FunctionIR& fn) -> const UnitDigest* {
    return dropped != nullptr ? dropped->digest(module, fn) : nullptr;
  };
  struct Candidate {
    const FunctionIR* fn;
    const ModuleIR* module;
    const std::string* name; // the summary's: the function's qualified name, or the module's
  };
  std::vector<Candidate> candidates;
  std::unordered_map<std::string, int> definitions;
  std::deque<std::string> classBodyNames; // the candidates' names point into it
  for (const ModuleIR* module : modules) {
    for (const FunctionIR& fn : module->units) {
      if (fn.kind == UnitKind::ClassBody && module->language == Language::Python &&
          !fn.qualifiedName.empty() && fn.entry != kNoNode) {
        // The enclosing unit runs the body where the class is defined (runsClassBody).
        classBodyNames.push_back(fn.qualifiedName + std::string(kClassBodySuffix));
        candidates.push_back({&fn, module, &classBodyNames.back()});
        ++definitions[classBodyNames.back()];
      } else if (isSummarisable(fn)) {
        candidates.push_back({&fn, module, &fn.qualifiedName});
        ++definitions[fn.qualifiedName];
      } else if (fn.kind == UnitKind::Module && module->language == Language::Python &&
                 !module->moduleName.empty() && fn.entry != kNoNode) {
        // An import runs the module's top level: importers see what it leaves behind.
        candidates.push_back({&fn, module, &module->moduleName});
        ++definitions[module->moduleName];
      }
    }
  }
  // A name defined twice (two scripts with one stem, a def under if/else) is ambiguous:
  // leave it unsummarised rather than guess which definition a call reaches.
  std::erase_if(candidates, [&](const Candidate& c) { return definitions[*c.name] > 1; });
  // `Cls()` runs `Cls.__init__`: the class's name stands for its constructor's summary, and
  // for its `with` and decorator methods.
  std::vector<std::string> classNames;
  std::unordered_map<std::string, ExitUnit> exits; // each class's own `__exit__`
  {
    std::unordered_set<std::string> seen;
    for (const Candidate& candidate : candidates) {
      const FunctionIR& fn = *candidate.fn;
      if (fn.name == "__exit__" && !fn.className.empty() &&
          fn.qualifiedName.size() > fn.name.size() + 1) {
        exits.emplace(fn.qualifiedName.substr(0, fn.qualifiedName.size() - fn.name.size() - 1),
                      ExitUnit{&fn, digestOf(*candidate.module, fn)});
      }
      const bool classMethod =
          fn.name == "__init__" ||
          std::find(std::begin(kContextMethods), std::end(kContextMethods), fn.name) !=
              std::end(kContextMethods);
      if (!classMethod || fn.className.empty()) continue;
      const size_t dot = fn.qualifiedName.size() - fn.name.size() - 1;
      if (fn.qualifiedName.size() <= fn.name.size() || fn.qualifiedName[dot] != '.') continue;
      std::string name = fn.qualifiedName.substr(0, dot);
      if (seen.insert(name).second) classNames.push_back(std::move(name));
    }
  }
  const std::vector<NameLink> aliases = reexportLinks(modules, definitions);

  // A worklist over the names whose summaries changed: each change queues the functions that
  // read that name (their calls, imports and `with` blocks name it) and the names derived from
  // it (a class from its methods, a re-export from what it imports). Summaries only grow (more
  // effects become visible), so this settles; a chain of imports or calls of any depth settles
  // in one pass along it, with no recursion. A cap on the analyses of one function keeps a
  // pathological call graph from running long.
  std::unordered_map<std::string_view, std::vector<uint32_t>> readers;
  for (uint32_t i = 0; i < candidates.size(); ++i) {
    if (const UnitDigest* digest = digestOf(*candidates[i].module, *candidates[i].fn)) {
      for (const UnitDigest::Call& call : digest->calls) {
        std::vector<uint32_t>& list = readers[call.callee];
        if (list.empty() || list.back() != i) list.push_back(i);
      }
      continue;
    }
    for (const Node& node : candidates[i].fn->nodes) {
      const Event& event = node.event;
      if (event.callee.empty() ||
          (event.kind != EventKind::Call && event.kind != EventKind::EnterGuard &&
           event.kind != EventKind::ExitGuard)) {
        continue;
      }
      std::vector<uint32_t>& list = readers[event.callee];
      if (list.empty() || list.back() != i) list.push_back(i);
    }
  }
  // Derived names: the classes (index < classNames.size()), then the re-export links.
  constexpr size_t kMethods = std::size(kContextMethods) + 1; // and `__init__`
  std::vector<std::string> methodNames; // the keys of derivedReaders view them
  methodNames.reserve(classNames.size() * kMethods);
  for (const std::string& name : classNames) {
    methodNames.push_back(name + ".__init__");
    for (std::string_view method : kContextMethods) {
      methodNames.push_back(name + "." + std::string(method));
    }
  }
  std::unordered_map<std::string_view, std::vector<uint32_t>> derivedReaders;
  auto dependsOn = [&](std::string_view name, uint32_t derived) {
    std::vector<uint32_t>& list = derivedReaders[name];
    if (list.empty() || list.back() != derived) list.push_back(derived);
  };
  for (uint32_t c = 0; c < classNames.size(); ++c) {
    for (size_t m = 0; m < kMethods; ++m) dependsOn(methodNames[c * kMethods + m], c);
    // Whether its `__exit__` keeps the mode reads the summaries of what that calls.
    if (const auto exit = exits.find(classNames[c]);
        exit != exits.end() && exit->second.digest != nullptr) {
      for (const UnitDigest::Call& call : exit->second.digest->calls) {
        if (call.kind == EventKind::Call) dependsOn(call.callee, c);
      }
    } else if (exit != exits.end()) {
      for (const Node& node : exit->second.fn->nodes) {
        if (node.event.kind == EventKind::Call && !node.event.callee.empty()) {
          dependsOn(node.event.callee, c);
        }
      }
    }
  }
  for (uint32_t a = 0; a < aliases.size(); ++a) {
    dependsOn(aliases[a].target, static_cast<uint32_t>(classNames.size() + a));
  }

  const size_t derivedCount = classNames.size() + aliases.size();
  std::deque<uint32_t> queue(candidates.size());
  std::iota(queue.begin(), queue.end(), 0U);
  std::vector<char> queued(candidates.size(), 1);
  std::deque<uint32_t> derivedQueue(derivedCount);
  std::iota(derivedQueue.begin(), derivedQueue.end(), 0U);
  std::vector<char> derivedQueued(derivedCount, 1);
  std::vector<char> methodChanged(classNames.size(), 0);
  std::vector<uint16_t> visits(candidates.size(), 0);
  std::unordered_set<std::string> classesWithEffects;
  constexpr uint16_t kMaxVisits = 32;
  bool converged = true;
  auto changedName = [&](const std::string& name) {
    if (const auto found = readers.find(name); found != readers.end()) {
      for (uint32_t reader : found->second) {
        if (queued[reader] != 0) continue;
        queued[reader] = 1;
        queue.push_back(reader);
      }
    }
    if (const auto found = derivedReaders.find(name); found != derivedReaders.end()) {
      for (uint32_t derived : found->second) {
        // A class whose method changed: its `with` blocks read that method.
        if (derived < classNames.size()) methodChanged[derived] = 1;
        if (derivedQueued[derived] != 0) continue;
        derivedQueued[derived] = 1;
        derivedQueue.push_back(derived);
      }
    }
  };
  while (!queue.empty() || !derivedQueue.empty()) {
    if (queue.empty()) {
      const uint32_t derived = derivedQueue.front();
      derivedQueue.pop_front();
      derivedQueued[derived] = 0;
      if (derived < classNames.size()) {
        const std::string& name = classNames[derived];
        bool changed = false;
        if (updateClass(table, name, exits, changed)) classesWithEffects.insert(name);
        const bool method = methodChanged[derived] != 0;
        methodChanged[derived] = 0;
        if (changed || (method && classesWithEffects.count(name) != 0)) changedName(name);
        continue;
      }
      const NameLink& link = aliases[derived - classNames.size()];
      // A class defined here whose constructor has effects keeps them; an import of the same
      // name (a fallback) does not replace them.
      if (classesWithEffects.count(link.name) != 0) continue;
      const FunctionSummary* target = table.find(link.target);
      if (target == nullptr) continue;
      const FunctionSummary copy = *target; // update() may rehash the table
      if (table.update(link.name, copy)) changedName(link.name);
      continue;
    }
    const uint32_t index = queue.front();
    queue.pop_front();
    queued[index] = 0;
    if (++visits[index] > kMaxVisits) {
      converged = false;
      continue;
    }
    Candidate& candidate = candidates[index];
    if (const UnitDigest* digest = digestOf(*candidate.module, *candidate.fn)) {
      if (candidate.fn->decoratorRegion.use == DecoratorUse::None &&
          !touchesGradMode(*digest, table)) {
        continue;
      }
      // From here on the candidate is analysed: whole.
      const FunctionIR* whole = dropped->whole(*candidate.module, *candidate.fn);
      if (whole == nullptr) continue;
      candidate.fn = whole;
    }
    const FunctionIR& fn = *candidate.fn;
    if (!touchesGradMode(fn, table)) continue;
    GradStateReport report = analyzeGradState(fn, &table);
    FunctionSummary summary =
        summarize(fn, report, table, candidate.module->path, candidate.module->origin);
    if (fn.kind == UnitKind::Module) {
      summary = importEffect(summary);
      summary.moduleOrigin = candidate.module->origin;
    }
    if (fn.kind == UnitKind::ClassBody) {
      // Like a module's top level, only the mode it leaves matters (it returns nothing).
      summary = importEffect(summary);
      summary.moduleTopLevel = false;
    }
    const std::string& name = *candidate.name;
    if (summary.affectsCallers() || table.find(name) != nullptr) {
      if (table.update(name, summary)) changedName(name);
    }
    if (reports != nullptr) (*reports)[&fn] = std::move(report);
  }
  if (!converged && reports != nullptr) reports->clear();
  // Call sites are counted only for the functions the rules ask about, those defined in the
  // modules: most calls go to torch or builtins, and one lookup each is the cost that counts.
  struct CallCount {
    int total = 0;
    int gradDisabled = 0;
  };
  std::unordered_map<std::string_view, CallCount> calls;
  for (const ModuleIR* module : modules) {
    for (const FunctionIR& fn : module->units) {
      if (fn.qualifiedName.empty()) continue;
      calls.try_emplace(fn.qualifiedName);
    }
  }
  for (const ModuleIR* module : modules) {
    for (const FunctionIR& fn : module->units) {
      if (const UnitDigest* digest = digestOf(*module, fn)) {
        for (const UnitDigest::Call& call : digest->calls) {
          if (call.kind != EventKind::Call) continue;
          auto it = calls.find(call.callee);
          if (it == calls.end()) continue;
          ++it->second.total;
          it->second.gradDisabled += call.regionDisablesGrad;
        }
        continue;
      }
      for (const Node& node : fn.nodes) {
        if (node.event.kind != EventKind::Call || node.event.callee.empty()) continue;
        auto it = calls.find(node.event.callee);
        if (it == calls.end()) continue;
        ++it->second.total;
        it->second.gradDisabled += node.event.regionDisablesGrad;
      }
    }
  }
  for (const auto& [name, count] : calls) {
    if (count.total == 0) continue;
    const std::string qualifiedName(name);
    table.addCallSites(qualifiedName, count.total, count.gradDisabled);
    if (table.find(qualifiedName) != nullptr) table.addCallers(qualifiedName, count.total);
  }
  return table;
}

} // namespace gradlint::ir
