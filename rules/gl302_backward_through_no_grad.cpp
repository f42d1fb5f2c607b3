// GL302 backward-through-no-grad: `.backward()` on a value every definition of which was
// computed with grad disabled: it has no graph, and backward raises.
#include "rules/training_loop.h"

#include <fmt/format.h>

#include <algorithm>

namespace gradlint::rules {
namespace {

class BackwardThroughNoGrad final : public Rule {
public:
  const RuleInfo& info() const override {
    static constexpr RuleInfo kInfo{
        "GL302", "backward-through-no-grad",
        "backward() on a value computed with grad disabled (no graph to backpropagate)",
        Severity::Error};
    return kInfo;
  }
  // The grad-mode APIs (Rule's markers): a helper that leaves grad disabled must be parsed for
  // its summary, which tells a caller's backward that its value has no graph.
  std::vector<std::string_view> wordMarkers() const override {
    return {"backward", "manual_backward"}; // Lightning: self.manual_backward(loss)
  }

  void check(RuleContext& context) const override {
    const auto& units = context.module().units;
    for (size_t index = 0; index < units.size(); ++index) {
      const ir::FunctionIR& fn = units[index];
      if (!hasBackward(fn)) continue;
      DisabledDefinitions definitions(context, index);
      if (definitions.empty()) continue;
      for (ir::NodeId id = 0; id < fn.nodes.size(); ++id) {
        const ir::Event& event = fn.nodes[id].event;
        if (event.kind != ir::EventKind::Backward || event.var.empty()) continue;
        const std::vector<ir::NodeId> defs = definitions.reaching(id, event.var);
        if (defs.empty() || !std::all_of(defs.begin(), defs.end(), [&](ir::NodeId d) {
              return definitions.disabled(d);
            })) {
          continue;
        }
        Diagnostic diagnostic = makeDiagnostic(event.range);
        diagnostic.message = fmt::format(
            "`{}` was computed with grad disabled, so it has no autograd graph: `backward()` "
            "raises \"element 0 of tensors does not require grad and does not have a grad_fn\"",
            event.var);
        diagnostic.help = fmt::format(
            "compute `{}` outside {} (keep only the frozen parts inside it)", event.var,
            context.module().language == ir::Language::Cpp
                ? "the scope of the `torch::NoGradGuard`/`c10::InferenceMode` guard"
                : "the `torch.no_grad()`/`torch.inference_mode()` region");
        diagnostic.related.push_back({std::string(), definitions.cause(defs.front()),
                                      "grad is disabled here"});
        diagnostic.related.push_back({std::string(), fn.nodes[defs.front()].event.range,
                                      fmt::format("`{}` is computed here", event.var)});
        context.report(std::move(diagnostic));
      }
    }
  }

  static bool hasBackward(const ir::FunctionIR& fn) {
    return std::any_of(fn.nodes.begin(), fn.nodes.end(), [](const ir::Node& node) {
      return node.event.kind == ir::EventKind::Backward;
    });
  }
};

} // namespace
} // namespace gradlint::rules

GRADLINT_REGISTER_RULE(gradlint::rules::BackwardThroughNoGrad)
