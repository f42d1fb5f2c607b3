// GL101 grad-mode-leak: a toggle disables grad mode and a normal exit (return, end of body,
// yield, await) leaves it disabled, so the caller and everything after it lose gradients.
#include "rules/grad_mode_leaks.h"

#include <fmt/format.h>

namespace gradlint::rules {
namespace {

class GradModeLeak final : public Rule {
public:
  const RuleInfo& info() const override {
    static constexpr RuleInfo kInfo{
        "GL101", "grad-mode-leak",
        "Grad mode is disabled and not restored before the function returns or yields",
        Severity::Error};
    return kInfo;
  }

  void check(RuleContext& context) const override {
    const auto& units = context.module().units;
    for (size_t index = 0; index < units.size(); ++index) {
      const ir::FunctionIR& fn = units[index];
      if (fn.kind == ir::UnitKind::Module || importTimeClassBody(context, fn)) continue;
      for (const ir::Leak& leak : reportableLeaks(context, index)) {
        if (leak.exceptional) continue; // GL104
        Diagnostic diagnostic = leakDiagnostic(context, index, leak);
        diagnostic.code = std::string(info().code);
        diagnostic.severity = info().severity;
        diagnostic.message = message(fn, leak);
        diagnostic.help = "wrap the code in `with torch.no_grad():` (or decorate the function "
                          "with `@torch.no_grad()`), or save `torch.is_grad_enabled()` first "
                          "and restore it in a `finally:` block";
        context.report(std::move(diagnostic));
      }
    }
  }

  // A class body at module level runs at import time: GL102's territory.
  static bool importTimeClassBody(RuleContext& context, const ir::FunctionIR& fn) {
    return fn.kind == ir::UnitKind::ClassBody && !fn.qualifiedName.empty() &&
           fn.qualifiedName == (context.module().moduleName.empty()
                                    ? fn.name
                                    : context.module().moduleName + "." + fn.name);
  }

private:
  static std::string message(const ir::FunctionIR& fn, const ir::Leak& leak) {
    const ir::Event& toggle = fn.nodes[leak.toggle].event;
    const ir::EventKind exit = fn.nodes[leak.exit].event.kind;
    const std::string who = displayName(fn);
    const std::string what = describeToggle(fn, leak.toggle);
    const bool suspends = exit == ir::EventKind::Yield || exit == ir::EventKind::Await;
    const std::string consequence =
        suspends ? "its caller runs with gradients off while it is suspended"
                 : "every later `backward()` in this thread computes no gradients";
    if (toggle.kind == ir::EventKind::Call) {
      return fmt::format("{} returns with grad mode disabled and `{}` {} without restoring it; {}",
                         what, who, suspends ? "suspends" : "returns", consequence);
    }
    const char* verb = toggle.value == ir::GradValue::Unknown ? "may disable" : "disables";
    return fmt::format("{} {} grad mode and `{}` {} with it still disabled; {}", what, verb, who,
                       suspends ? (exit == ir::EventKind::Yield ? "yields" : "awaits")
                                : "returns",
                       consequence);
  }
};

} // namespace
} // namespace gradlint::rules

GRADLINT_REGISTER_RULE(gradlint::rules::GradModeLeak)
