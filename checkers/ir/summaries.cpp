#include "checkers/ir/summaries.h"

#include "checkers/ir/placement.h"

#include <algorithm>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

namespace gradlint::ir {
namespace {

bool touchesGradMode(const FunctionIR& fn, const SummaryTable& table) {
  for (const Node& node : fn.nodes) {
    switch (node.event.kind) {
    case EventKind::SetGrad:
    case EventKind::SaveGrad:
    case EventKind::RestoreGrad:
    case EventKind::RestoreArg:
    case EventKind::ZeroGrad:
    case EventKind::Offload: return true;
    case EventKind::Call:
      if (!node.event.callee.empty() && table.find(node.event.callee) != nullptr) return true;
      break;
    default: break;
    }
  }
  return false;
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

bool callsAny(const FunctionIR& fn, const std::unordered_set<std::string>& names) {
  return std::any_of(fn.nodes.begin(), fn.nodes.end(), [&](const Node& node) {
    return node.event.kind == EventKind::Call && names.count(node.event.callee) != 0;
  });
}

} // namespace

bool isSummarisable(const FunctionIR& fn) {
  return fn.kind == UnitKind::Function && !fn.isGenerator && !fn.isAsync &&
         !fn.qualifiedName.empty() && fn.entry != kNoNode;
}

FunctionSummary summarize(const FunctionIR& fn, const GradStateReport& report,
                          const SummaryTable& table, const std::string& path) {
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
      if (const FunctionSummary* callee = table.find(event.callee)) {
        summary.resetsGradients = summary.resetsGradients || callee->resetsGradients;
      }
    }
    if (event.kind == EventKind::RestoreArg && event.argIndex >= 0 &&
        std::find(summary.restoresArgs.begin(), summary.restoresArgs.end(), event.argIndex) ==
            summary.restoresArgs.end()) {
      summary.restoresArgs.push_back(event.argIndex);
    }
    if (event.kind != EventKind::Return && event.kind != EventKind::FallThrough) continue;
    anyReturn = true;
    summary.mayLeaveInherited = summary.mayLeaveInherited || in.inherited;
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
  std::sort(summary.restoresArgs.begin(), summary.restoresArgs.end());
  if (rootToggle != kNoNode) {
    // Point at the root cause: through a chain of helpers, the toggle that started it.
    const Event& toggle = fn.nodes[rootToggle].event;
    const FunctionSummary* inner =
        toggle.kind == EventKind::Call ? table.find(toggle.callee) : nullptr;
    if (inner != nullptr && !inner->togglePath.empty()) {
      summary.togglePath = inner->togglePath;
      summary.toggleRange = inner->toggleRange;
      summary.toggleText = inner->toggleText;
    } else {
      summary.togglePath = path;
      summary.toggleRange = toggle.range;
      summary.toggleText = toggle.callee;
    }
  }
  return summary;
}

SummaryTable computeSummaries(const std::vector<const ModuleIR*>& modules,
                              GradStateReports* reports) {
  SummaryTable table;
  struct Candidate {
    const FunctionIR* fn;
    const std::string* path;
  };
  std::vector<Candidate> candidates;
  std::unordered_map<std::string, int> definitions;
  for (const ModuleIR* module : modules) {
    for (const FunctionIR& fn : module->units) {
      if (isSummarisable(fn)) {
        candidates.push_back({&fn, &module->path});
        ++definitions[fn.qualifiedName];
      }
    }
  }
  // A name defined twice (two scripts with one stem, a def under if/else) is ambiguous:
  // leave it unsummarised rather than guess which definition a call reaches.
  std::erase_if(candidates, [&](const Candidate& c) { return definitions[c.fn->qualifiedName] > 1; });
  // Summaries only grow (more effects become visible), so this reaches a fixpoint; the bound
  // keeps a pathological call graph from running long. A function's analysis reads the table
  // only at its calls, so after the first round only callers of a changed summary are redone.
  constexpr int kMaxRounds = 16;
  std::unordered_set<std::string> changed;
  bool converged = false;
  for (int round = 0; round < kMaxRounds && !converged; ++round) {
    std::unordered_set<std::string> changedNow;
    for (const Candidate& candidate : candidates) {
      const FunctionIR& fn = *candidate.fn;
      if (round > 0 && !callsAny(fn, changed)) continue;
      if (!touchesGradMode(fn, table)) continue;
      GradStateReport report = analyzeGradState(fn, &table);
      const FunctionSummary summary = summarize(fn, report, table, *candidate.path);
      if (summary.affectsCallers() || table.find(fn.qualifiedName) != nullptr) {
        if (table.update(fn.qualifiedName, summary)) changedNow.insert(fn.qualifiedName);
      }
      if (reports != nullptr) (*reports)[&fn] = std::move(report);
    }
    converged = changedNow.empty();
    changed = std::move(changedNow);
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
