// GL305 zero-grad-between-backward-and-step: backward -> zero_grad -> step with no backward
// between the last two: the step applies zeroed (or None) gradients and the model never learns.
#include "rules/training_loop.h"

#include <fmt/format.h>

namespace gradlint::rules {
namespace {

class ZeroGradBetweenBackwardAndStep final : public Rule {
public:
  const RuleInfo& info() const override {
    static constexpr RuleInfo kInfo{
        "GL305", "zero-grad-between-backward-and-step",
        "zero_grad() between backward() and step() throws the gradients away", Severity::Error};
    return kInfo;
  }
  std::vector<std::string_view> markers() const override { return {"zero_grad", ".grad = None", "grad.zero_("}; }
  std::vector<std::string_view> wordMarkers() const override {
    return {"backward", "manual_backward"}; // Lightning: self.manual_backward(loss)
  }

  void check(RuleContext& context) const override {
    for (const ir::FunctionIR& fn : context.module().units) {
      const AccumulationFindings findings = analyzeAccumulation(fn, context.summaries());
      for (const auto& zero : findings.zeroBeforeStep) {
        const ir::Event& reset = fn.nodes[zero.zeroGrad].event;
        Diagnostic diagnostic = makeDiagnostic(reset.range);
        diagnostic.message = fmt::format(
            "{} runs after `backward()` and before `step()`: the step applies zeroed "
            "gradients, so the parameters do not learn from this batch",
            reset.spelled.empty() ? std::string("this gradient reset")
            : reset.spelled.find('=') != std::string::npos ? fmt::format("`{}`", reset.spelled)
                                                           : fmt::format("`{}()`", reset.spelled));
        diagnostic.help = "move `zero_grad()` before the forward pass or after `step()`";
        diagnostic.related.push_back({std::string(), fn.nodes[zero.step].event.range,
                                      "the step that gets the zeroed gradients"});
        context.report(std::move(diagnostic));
      }
    }
  }
};

} // namespace
} // namespace gradlint::rules

GRADLINT_REGISTER_RULE(gradlint::rules::ZeroGradBetweenBackwardAndStep)
