// GL301 missing-zero-grad: backward -> step -> backward with no gradient reset between the two
// backward calls: the second backward adds to gradients the optimizer already applied.
#include "rules/training_loop.h"

#include <fmt/format.h>

namespace gradlint::rules {
namespace {

class MissingZeroGrad final : public Rule {
public:
  const RuleInfo& info() const override {
    static constexpr RuleInfo kInfo{
        "GL301", "missing-zero-grad",
        "Gradients accumulate across optimizer steps: no zero_grad() between backward calls",
        Severity::Warning};
    return kInfo;
  }
  std::vector<std::string_view> markers() const override { return {"zero_grad", ".grad = None", "grad.zero_("}; }
  std::vector<std::string_view> wordMarkers() const override {
    return {"backward", "manual_backward"}; // Lightning: self.manual_backward(loss)
  }

  void check(RuleContext& context) const override {
    for (const ir::FunctionIR& fn : context.module().units) {
      const AccumulationFindings findings = analyzeAccumulation(fn, context.summaries());
      for (const auto& stale : findings.staleSteps) {
        const ir::Event& step = fn.nodes[stale.step].event;
        Diagnostic diagnostic = makeDiagnostic(step.range);
        diagnostic.message = fmt::format(
            "`{}` applies the gradients, but nothing resets them before the next `backward()`: "
            "each step adds its gradients to ones already applied, so updates grow step after "
            "step",
            step.spelled.empty() ? std::string("step()") : step.spelled.str() + "()");
        diagnostic.help = fmt::format(
            "call `optimizer.zero_grad()` (or `{}`) once per step, e.g. at the top of the loop "
            "body or right after `step()`",
            context.module().language == ir::Language::Cpp ? "model->zero_grad()"
                                                           : "model.zero_grad()");
        diagnostic.related.push_back(
            {std::string(), fn.nodes[stale.nextBackward].event.range,
             "this `backward()` adds to the gradients the step already used"});
        context.report(std::move(diagnostic));
      }
    }
  }
};

} // namespace
} // namespace gradlint::rules

GRADLINT_REGISTER_RULE(gradlint::rules::MissingZeroGrad)
