// GL303 eval-without-no-grad: model.eval() then model calls in a loop with grad enabled and no
// backward(): eval() changes dropout/batch-norm, not autograd, so every call still records a
// graph and keeps activations alive.
#include "rules/training_loop.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <deque>

namespace gradlint::rules {
namespace {

// Hooks that frameworks already run without grad (PyTorch Lightning).
constexpr std::array<std::string_view, 3> kNoGradHooks = {"validation_step", "test_step",
                                                          "predict_step"};

class EvalWithoutNoGrad final : public Rule {
public:
  const RuleInfo& info() const override {
    static constexpr RuleInfo kInfo{
        "GL303", "eval-without-no-grad",
        "eval() without no_grad(): evaluation still records autograd graphs", Severity::Warning};
    return kInfo;
  }
  std::vector<std::string_view> markers() const override { return {".eval(", ".train("}; }
  // applies() asks whether every call site runs with grad disabled.
  std::optional<ir::EventKind> needsCallersOf() const override { return ir::EventKind::Eval; }

  void check(RuleContext& context) const override {
    const auto& units = context.module().units;
    for (size_t index = 0; index < units.size(); ++index) {
      const ir::FunctionIR& fn = units[index];
      if (fn.entry == ir::kNoNode || !applies(context, fn)) continue;
      for (ir::NodeId id = 0; id < fn.nodes.size(); ++id) {
        const ir::Event& eval = fn.nodes[id].event;
        if (eval.kind != ir::EventKind::Eval || eval.var.empty()) continue;
        if (trainsAfter(fn, id)) continue;
        const ir::NodeId call = firstModelCallInLoop(context, index, id, eval.var);
        if (call == ir::kNoNode) continue;
        Diagnostic diagnostic = makeDiagnostic(fn.nodes[call].event.range);
        diagnostic.message = fmt::format(
            "`{}` runs in evaluation mode but with grad enabled: `eval()` only changes dropout "
            "and batch-norm, so each call still records an autograd graph and holds its "
            "activations in memory",
            eval.var);
        diagnostic.help = context.module().language == ir::Language::Cpp
                              ? "declare `torch::NoGradGuard no_grad;` (or `c10::InferenceMode "
                                "guard;`) in the scope around the evaluation loop"
                              : "wrap the evaluation loop in `with torch.no_grad():` (or "
                                "`torch.inference_mode()`), or decorate the function with "
                                "`@torch.no_grad()`";
        diagnostic.related.push_back({std::string(), eval.range, "evaluation mode is set here"});
        context.report(std::move(diagnostic));
        break; // one finding per function
      }
    }
  }

private:
  static bool applies(RuleContext& context, const ir::FunctionIR& fn) {
    if (std::find(kNoGradHooks.begin(), kNoGradHooks.end(), fn.name) != kNoGradHooks.end()) {
      return false;
    }
    if (!fn.qualifiedName.empty() &&
        context.summaries().calledOnlyWithGradDisabled(fn.qualifiedName)) {
      return false;
    }
    return true;
  }

  // A backward() reachable from the eval() node: a training loop that evaluates on the side
  // (the next epoch trains again). One that only trained before it (a `main` that trains, then
  // evaluates in a loop of its own) does not excuse the evaluation loop.
  static bool trainsAfter(const ir::FunctionIR& fn, ir::NodeId eval) {
    std::vector<bool> seen(fn.nodes.size(), false);
    std::vector<ir::NodeId> stack{eval};
    seen[eval] = true;
    while (!stack.empty()) {
      const ir::NodeId id = stack.back();
      stack.pop_back();
      if (fn.nodes[id].event.kind == ir::EventKind::Backward) return true;
      for (ir::NodeId succ : fn.nodes[id].succs) {
        if (!seen[succ]) {
          seen[succ] = true;
          stack.push_back(succ);
        }
      }
    }
    return false;
  }

  // The first call of `model` (or `model.forward`) reachable from the eval() node, inside a
  // loop, with grad enabled.
  static ir::NodeId firstModelCallInLoop(RuleContext& context, size_t unitIndex, ir::NodeId from,
                                         const std::string& model) {
    const ir::FunctionIR& fn = context.module().units[unitIndex];
    std::vector<bool> seen(fn.nodes.size(), false);
    std::deque<ir::NodeId> queue{from};
    seen[from] = true;
    ir::NodeId best = ir::kNoNode;
    while (!queue.empty()) {
      const ir::NodeId id = queue.front();
      queue.pop_front();
      const ir::Event& event = fn.nodes[id].event;
      if (event.kind == ir::EventKind::Train && event.var == model) continue; // back to training
      if (event.kind == ir::EventKind::Call && event.loopDepth > 0 &&
          (event.spelled == model || event.spelled == model + ".forward") &&
          !gradDisabledAt(context, unitIndex, id)) {
        if (best == ir::kNoNode || event.range.startByte < fn.nodes[best].event.range.startByte) {
          best = id;
        }
      }
      for (ir::NodeId succ : fn.nodes[id].succs) {
        if (!seen[succ]) {
          seen[succ] = true;
          queue.push_back(succ);
        }
      }
    }
    return best;
  }
};

} // namespace
} // namespace gradlint::rules

GRADLINT_REGISTER_RULE(gradlint::rules::EvalWithoutNoGrad)
