// GL106 guard-declared-as-function: `torch::NoGradGuard guard();` in a C++ function declares a
// function named `guard` (the most vexing parse), so no guard is made and grad mode is unchanged.
#include "rules/cpp_guard_fix.h"
#include "rules/rule.h"

#include <fmt/format.h>

namespace gradlint::rules {
namespace {

class GuardDeclaredAsFunction final : public Rule {
public:
  const RuleInfo& info() const override {
    static constexpr RuleInfo kInfo{
        "GL106", "guard-declared-as-function",
        "A C++ guard written with empty parentheses declares a function, not a guard",
        Severity::Error};
    return kInfo;
  }

  // Only C++ files hold these declarations, and the engine prefilters those with the catalog's
  // C++ names (cppMarkers()); for Python files, names no Python code uses.
  std::vector<std::string_view> markers() const override {
    return {"NoGradGuard", "AutoGradMode", "InferenceMode", "AutoDispatchBelow"};
  }

  void check(RuleContext& context) const override {
    for (const ir::FunctionIR& fn : context.module().units) {
      for (const ir::Node& node : fn.nodes) {
        const ir::Event& event = node.event;
        if (event.kind != ir::EventKind::LocalFunctionDecl) continue;
        const std::string type = event.spelled.empty() ? event.callee : event.spelled;
        Diagnostic diagnostic = makeDiagnostic(event.range);
        diagnostic.message = fmt::format(
            "`{} {}();` declares a function named `{}`, not a guard object (the most vexing "
            "parse), so {}",
            type, event.var, event.var, cppfix::missedEffect(event.guard));
        diagnostic.help =
            fmt::format("drop the parentheses: `{} {};` (or use braces: `{} {}{{}};`)", type,
                        event.var, type, event.var);
        if (context.source() != nullptr) {
          diagnostic.fix = cppfix::dropTheParenthesesFix(*context.source(), event);
        }
        context.report(std::move(diagnostic));
      }
    }
  }
};

} // namespace
} // namespace gradlint::rules

GRADLINT_REGISTER_RULE(gradlint::rules::GuardDeclaredAsFunction)
