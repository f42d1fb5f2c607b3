// GL104 grad-mode-restore-not-exception-safe: every normal path restores grad mode, but an
// exception between the toggle and the restore skips it.
#include "rules/grad_mode_leaks.h"

#include <fmt/format.h>

namespace gradlint::rules {
namespace {

class RestoreNotExceptionSafe final : public Rule {
public:
  const RuleInfo& info() const override {
    static constexpr RuleInfo kInfo{
        "GL104", "grad-mode-restore-not-exception-safe",
        "Grad mode is restored on normal paths only; an exception leaves it disabled",
        Severity::Warning};
    return kInfo;
  }

  void check(RuleContext& context) const override {
    const auto& units = context.module().units;
    for (size_t index = 0; index < units.size(); ++index) {
      const ir::FunctionIR& fn = units[index];
      // An import that raises fails loudly on its own; GL104 is about functions.
      if (fn.kind != ir::UnitKind::Function && fn.kind != ir::UnitKind::Lambda) continue;
      for (const ir::Leak& leak : reportableLeaks(context, index)) {
        if (!leak.exceptional) continue;
        Diagnostic diagnostic = leakDiagnostic(context, index, leak);
        diagnostic.code = std::string(info().code);
        diagnostic.severity = info().severity;
        diagnostic.message = fmt::format(
            "{} disables grad mode and `{}` restores it only on the normal path; an exception "
            "before the restore leaves gradients off for the rest of the thread",
            describeToggle(fn, leak.toggle, context.module().language), displayName(fn));
        diagnostic.help =
            context.module().language == ir::Language::Cpp
                ? "use a `torch::NoGradGuard` / `c10::AutoGradMode` guard object (or restore "
                  "the mode in a destructor): destructors run when an exception unwinds"
                : "restore the saved mode in a `finally:` block, or use `with "
                  "torch.set_grad_enabled(False):` / `with torch.no_grad():`";
        context.report(std::move(diagnostic));
      }
    }
  }
};

} // namespace
} // namespace gradlint::rules

GRADLINT_REGISTER_RULE(gradlint::rules::RestoreNotExceptionSafe)
