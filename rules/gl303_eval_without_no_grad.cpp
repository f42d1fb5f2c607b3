// GL303 eval-without-no-grad: model.eval() then model calls in a loop with grad enabled and no
// backward(): eval() changes dropout/batch-norm, not autograd, so every call still records a
// graph and keeps activations alive.
#include "rules/training_loop.h"

#include "checkers/ir/dataflow.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <deque>
#include <set>
#include <string>

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
        if (trainsOnEvalOutputs(fn, eval.var.str())) continue;
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

  // Whether a backward() can consume what `model` computes in evaluation mode: test-time
  // training and batch-norm adaptation train on the evaluation loop's outputs, so the graph the
  // loop records is needed. A training loop that evaluates on the side (an epoch that trains,
  // evaluates, and trains again) does not excuse the evaluation loop: its backward() consumes
  // the training batches' outputs.
  //
  // A forward dataflow (ir::solveForward). Its fact: whether `model` is in evaluation mode, and
  // the names holding values computed from the model in that mode (directly or through other
  // such names). An assignment redefines its name, so a name reused by the training loop
  // (`out = model(x)` after `model.train()`) no longer counts.
  struct EvalOutputs {
    bool evalMode = false;
    std::set<std::string> outputs; // names holding evaluation-mode results
  };

  class EvalOutputsAnalysis {
  public:
    explicit EvalOutputsAnalysis(const std::string& model) : model_(model) {}
    EvalOutputs entryFact() const { return {}; }
    bool join(EvalOutputs& into, const EvalOutputs& from) const {
      bool changed = false;
      if (from.evalMode && !into.evalMode) into.evalMode = changed = true;
      for (const std::string& name : from.outputs) changed |= into.outputs.insert(name).second;
      return changed;
    }
    EvalOutputs exceptionFact(ir::NodeId, const ir::Node&, const EvalOutputs& in) const {
      return in;
    }
    EvalOutputs transfer(ir::NodeId, const ir::Node& node, const EvalOutputs& in) const {
      const ir::Event& event = node.event;
      const std::string& var = event.var.str();
      EvalOutputs out = in;
      switch (event.kind) {
      case ir::EventKind::Eval:
        if (var == model_) out.evalMode = true;
        break;
      case ir::EventKind::Train:
        if (var == model_) out.evalMode = false;
        break;
      case ir::EventKind::Assign:
        if (readsOutputs(in, event.sources().deps)) {
          out.outputs.insert(var);
        } else {
          out.outputs.erase(var);
        }
        break;
      case ir::EventKind::Call: {
        // `out = model(x)` (the call's target), and `outputs.append(out)`: the collection holds
        // evaluation results from then on.
        const std::string_view spelled = event.spelled.str();
        if (!var.empty() && in.evalMode && isModel(spelled)) out.outputs.insert(var);
        const size_t dot = spelled.rfind('.');
        if (dot == std::string_view::npos) break;
        const std::string_view method = spelled.substr(dot + 1);
        if (method != "append" && method != "extend" && method != "insert" && method != "add" &&
            method != "update") {
          break;
        }
        const auto& args = event.call().argVars;
        if (std::any_of(args.begin(), args.end(), [&](const ir::InternedString& arg) {
              return in.outputs.count(arg.str()) > 0;
            })) {
          out.outputs.insert(std::string(spelled.substr(0, dot)));
        }
        break;
      }
      default: break;
      }
      return out;
    }
    // Whether the backward() `event`, reached with `in`, differentiates an evaluation output.
    bool consumes(const ir::Event& event, const EvalOutputs& in) const {
      if (!event.var.empty()) return in.outputs.count(event.var.str()) > 0;
      if (!event.sources().deps.empty()) return readsOutputs(in, event.sources().deps);
      // A value with no name nor known sources (C++: `model->forward(x).sum().backward()`)
      // while the model still evaluates: taken for one that consumes the evaluation, rather
      // than report a loop that may be trained on.
      return in.evalMode;
    }

  private:
    bool isModel(std::string_view name) const {
      return name == model_ ||
             (name.starts_with(model_) && name.substr(model_.size()) == ".forward");
    }
    bool readsOutputs(const EvalOutputs& in, const std::vector<ir::InternedString>& deps) const {
      return std::any_of(deps.begin(), deps.end(), [&](const ir::InternedString& dep) {
        return (in.evalMode && isModel(dep.str())) || in.outputs.count(dep.str()) > 0;
      });
    }
    const std::string& model_;
  };

  static bool trainsOnEvalOutputs(const ir::FunctionIR& fn, const std::string& model) {
    EvalOutputsAnalysis analysis(model);
    const auto flow = ir::solveForward(fn, analysis);
    for (ir::NodeId id = 0; id < fn.nodes.size(); ++id) {
      if (flow.reached[id] && fn.nodes[id].event.kind == ir::EventKind::Backward &&
          analysis.consumes(fn.nodes[id].event, flow.in[id])) {
        return true;
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
