// GL102 import-time-grad-mode: a package module changes grad mode at top level and leaves it
// changed, so merely importing it turns gradients off for the whole process.
#include "rules/grad_mode_leaks.h"

#include <fmt/format.h>

namespace gradlint::rules {
namespace {

class ImportTimeGradMode final : public Rule {
public:
  const RuleInfo& info() const override {
    static constexpr RuleInfo kInfo{
        "GL102", "import-time-grad-mode",
        "A package module disables grad mode at import time and leaves it disabled",
        Severity::Error};
    return kInfo;
  }

  void check(RuleContext& context) const override {
    // Scripts outside packages run on purpose; only importable modules hurt their importers.
    // An import of a module whose top level leaves grad mode disabled is nobody's purpose: it is
    // reported in scripts too, at the import.
    const bool inPackage = context.module().inPackage;
    const auto& units = context.module().units;
    const std::string& moduleName = context.module().moduleName;
    for (size_t index = 0; index < units.size(); ++index) {
      const ir::FunctionIR& fn = units[index];
      const bool moduleLevel =
          fn.kind == ir::UnitKind::Module ||
          (fn.kind == ir::UnitKind::ClassBody && !moduleName.empty() &&
           fn.qualifiedName == moduleName + "." + fn.name);
      if (!moduleLevel) continue;
      for (const ir::Leak& leak : reportableLeaks(context, index)) {
        if (leak.exceptional) continue;
        const ir::Event& toggle = fn.nodes[leak.toggle].event;
        if (!inPackage && !toggle.importsModule) continue;
        Diagnostic diagnostic = leakDiagnostic(context, index, leak);
        diagnostic.code = std::string(info().code);
        diagnostic.severity = info().severity;
        if (toggle.importsModule) {
          const ImportChain chain = importChain(context.summaries(), toggle);
          diagnostic.message =
              chain.modules.empty()
                  ? fmt::format("importing `{}` disables grad mode: its top level leaves it "
                                "disabled and nothing here restores it; everything that runs "
                                "after this import computes no gradients",
                                toggle.callee)
                  : fmt::format("importing `{}` disables grad mode: {}, and nothing here "
                                "restores it; everything that runs after this import computes "
                                "no gradients",
                                toggle.callee, importChainText(chain, "leaves it disabled"));
          diagnostic.help = std::string(kImportLeakHelp);
          context.report(std::move(diagnostic));
          continue;
        }
        diagnostic.message = fmt::format(
            "{} changes grad mode when `{}` is imported and never restores it; every program "
            "that imports it computes no gradients afterwards",
            describeToggle(fn, leak.toggle), moduleName.empty() ? "this module" : moduleName);
        diagnostic.help = "move the call into the function that needs it and use `with "
                          "torch.no_grad():` there; import-time code must not change global "
                          "state";
        context.report(std::move(diagnostic));
      }
    }
  }
};

} // namespace
} // namespace gradlint::rules

GRADLINT_REGISTER_RULE(gradlint::rules::ImportTimeGradMode)
