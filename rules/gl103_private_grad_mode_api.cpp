// GL103 private-grad-mode-api: torch._C._set_grad_enabled and friends are internal: no
// context-manager form, no restore, and they may change between releases.
#include "rules/grad_mode_leaks.h"

#include <fmt/format.h>

namespace gradlint::rules {
namespace {

class PrivateGradModeApi final : public Rule {
public:
  const RuleInfo& info() const override {
    static constexpr RuleInfo kInfo{"GL103", "private-grad-mode-api",
                                    "Grad mode is changed through a private PyTorch API",
                                    Severity::Warning};
    return kInfo;
  }

  void check(RuleContext& context) const override {
    for (const ir::FunctionIR& fn : context.module().units) {
      for (const ir::Node& node : fn.nodes) {
        const ir::Event& event = node.event;
        const bool privateToggle =
            (event.kind == ir::EventKind::SetGrad || event.kind == ir::EventKind::RestoreGrad ||
             event.kind == ir::EventKind::RestoreArg) &&
            event.flavor == ir::ApiFlavor::Private;
        if (!privateToggle) continue;
        Diagnostic diagnostic;
        diagnostic.code = std::string(info().code);
        diagnostic.severity = info().severity;
        diagnostic.range = event.range;
        diagnostic.message = fmt::format(
            "`{}` is a private PyTorch API: it flips the thread's grad mode with no context "
            "manager to restore it, and it can change or disappear in any release",
            event.callee);
        diagnostic.help = "use `with torch.set_grad_enabled(mode):` or `with torch.no_grad():`";
        context.report(std::move(diagnostic));
      }
    }
  }
};

} // namespace
} // namespace gradlint::rules

GRADLINT_REGISTER_RULE(gradlint::rules::PrivateGradModeApi)
