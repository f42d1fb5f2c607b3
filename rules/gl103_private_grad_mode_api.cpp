// GL103 private-grad-mode-api: torch._C._set_grad_enabled and friends are internal: no
// context-manager form, no restore, and they may change between releases.
#include "checkers/python/syntax.h"
#include "rules/fix_support.h"
#include "rules/grad_mode_leaks.h"

#include <fmt/format.h>

#include <memory>

namespace gradlint::rules {
namespace {

// `torch._C._set_grad_enabled(mode)` as a statement -> `torch.set_grad_enabled(mode)`: the
// public constructor sets the mode the same way (its `__init__` calls the private setter), and
// the object it returns is dropped as the private call's `None` was. Offered only when the
// callee is spelled on the module the file imports as torch (`torch._C._set_grad_enabled`, or
// `th._C._set_grad_enabled` after `import torch as th`): with `from torch._C import
// _set_grad_enabled` the file may bind no name for the public function.
std::optional<Fix> publicSetterFix(const FixSyntax& syntax, const ir::Event& event) {
  const TSNode statement = syntax.standaloneCallStatement(event.range);
  if (ts_node_is_null(statement)) return std::nullopt;
  const TSNode call = ts_node_named_child(statement, 0);
  const TSNode function = python::field(call, python::fields().function);
  const std::vector<std::string_view> spelled = dottedParts(function, syntax.source().bytes());
  const std::vector<std::string_view> resolved = splitQualified(event.callee);
  // Same length: the spelled root is the torch module itself, not a submodule imported by name.
  if (spelled.size() < 2 || spelled.size() != resolved.size() || resolved.front() != "torch" ||
      !std::equal(spelled.begin() + 1, spelled.end(), resolved.begin() + 1)) {
    return std::nullopt;
  }
  Fix fix;
  fix.applicability = Applicability::Safe;
  const std::string replacement = fmt::format("{}.set_grad_enabled", spelled.front());
  fix.message = fmt::format("Use `{}`", replacement);
  fix.edits.push_back(
      Edit{ts_node_start_byte(function), ts_node_end_byte(function), replacement});
  return fix;
}

class PrivateGradModeApi final : public Rule {
public:
  const RuleInfo& info() const override {
    static constexpr RuleInfo kInfo{"GL103", "private-grad-mode-api",
                                    "Grad mode is changed through a private PyTorch API",
                                    Severity::Warning};
    return kInfo;
  }

  void check(RuleContext& context) const override {
    std::unique_ptr<FixSyntax> syntax; // parsed on the first finding only
    for (const ir::FunctionIR& fn : context.module().units) {
      for (const ir::Node& node : fn.nodes) {
        const ir::Event& event = node.event;
        const bool privateToggle =
            (event.kind == ir::EventKind::SetGrad || event.kind == ir::EventKind::RestoreGrad ||
             event.kind == ir::EventKind::RestoreArg) &&
            event.flavor == ir::ApiFlavor::Private;
        if (!privateToggle) continue;
        Diagnostic diagnostic = makeDiagnostic(event.range);
        diagnostic.message = fmt::format(
            "`{}` is a private PyTorch API: it flips the thread's grad mode with no context "
            "manager to restore it, and it can change or disappear in any release",
            event.callee);
        diagnostic.help = "use `with torch.set_grad_enabled(mode):` or `with torch.no_grad():`";
        if (context.source() != nullptr) {
          if (!syntax) syntax = std::make_unique<FixSyntax>(*context.source());
          diagnostic.fix = publicSetterFix(*syntax, event);
        }
        context.report(std::move(diagnostic));
      }
    }
  }
};

} // namespace
} // namespace gradlint::rules

GRADLINT_REGISTER_RULE(gradlint::rules::PrivateGradModeApi)
