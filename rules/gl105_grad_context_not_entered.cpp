// GL105 grad-context-not-entered: a grad-mode context manager that is never (properly)
// entered: `torch.no_grad()` as a statement does nothing, `with torch.no_grad:` raises, and
// `torch.no_grad().__enter__()` can never be exited.
#include "rules/grad_mode_api.h"
#include "rules/grad_mode_leaks.h"

#include <fmt/format.h>

namespace gradlint::rules {
namespace {

class GradContextNotEntered final : public Rule {
public:
  const RuleInfo& info() const override {
    static constexpr RuleInfo kInfo{
        "GL105", "grad-context-not-entered",
        "A grad-mode context manager is created but not entered with `with`", Severity::Error};
    return kInfo;
  }

  void check(RuleContext& context) const override {
    for (const ir::FunctionIR& fn : context.module().units) {
      for (const ir::Node& node : fn.nodes) {
        const ir::Event& event = node.event;
        Diagnostic diagnostic;
        if (event.kind == ir::EventKind::Call && event.resultDiscarded &&
            isGradContext(classifyPythonName(event.callee)) && event.var == "__enter__") {
          diagnostic.message = fmt::format(
              "`{}().__enter__()` does nothing lasting: the mode lives in the context object, "
              "which is freed at the end of the statement",
              event.callee);
          diagnostic.help = fmt::format("use `with {}():` around the code", event.callee);
        } else if (event.kind == ir::EventKind::Call && event.resultDiscarded &&
                   isGradContext(classifyPythonName(event.callee))) {
          diagnostic.message = fmt::format(
              "`{}()` as a statement does nothing: the context manager is created and thrown "
              "away, so grad mode is unchanged for the code below",
              event.callee);
          diagnostic.help = fmt::format(
              "put the code under `with {}():`, or decorate the function with `@{}()`",
              event.callee, event.callee);
        } else if (event.kind == ir::EventKind::EnterGuard && event.guardNotCalled) {
          diagnostic.message = fmt::format(
              "`with {}:` enters the class instead of an instance and fails at run time with "
              "a TypeError",
              event.callee);
          diagnostic.help = fmt::format("call it: `with {}():`", event.callee);
        } else if (event.kind == ir::EventKind::SetGrad &&
                   event.flavor == ir::ApiFlavor::ContextEnteredByHand) {
          diagnostic.message = fmt::format(
              "`{}().__enter__()` changes grad mode and drops the context object, so nothing "
              "can call `__exit__`: grad mode stays changed after this code",
              event.callee);
          diagnostic.help = fmt::format("use `with {}():` around the code", event.callee);
        } else {
          continue;
        }
        diagnostic.code = std::string(info().code);
        diagnostic.severity = info().severity;
        diagnostic.range = event.range;
        context.report(std::move(diagnostic));
      }
    }
  }
};

} // namespace
} // namespace gradlint::rules

GRADLINT_REGISTER_RULE(gradlint::rules::GradContextNotEntered)
