// GL306 train-in-eval-mode (preview): an evaluation pass puts a module in evaluation mode
// (`eval()`, then calls with grad disabled), and the module is then trained (a backward through
// its outputs, then an optimizer step) with no `train()` in between: dropout stays off and
// batch-norm stops using batch statistics. Nothing raises; the model only trains worse.
#include "checkers/ir/module_mode.h"
#include "rules/fix_support.h"
#include "rules/rule.h"

#include <fmt/format.h>

#include <memory>
#include <string>

namespace gradlint::rules {
namespace {

// `model.train()` on the line before the statement that trains it.
std::optional<Fix> trainModeFix(const FixSyntax& syntax, const ir::SourceRange& training,
                                const std::string& module) {
  const TSNode statement = syntax.statementStartingLine(training);
  if (ts_node_is_null(statement)) return std::nullopt;
  const uint32_t lineStart = syntax.source().lineStart(syntax.startLine(statement));
  const std::string indentation =
      syntax.source().bytes().substr(lineStart, ts_node_start_byte(statement) - lineStart);
  Fix fix;
  fix.message = fmt::format("Call `{}.train()` before training it", module);
  fix.edits.push_back(Edit{lineStart, lineStart, indentation + module + ".train()\n"});
  return fix;
}

class TrainInEvalMode final : public Rule {
public:
  const RuleInfo& info() const override {
    static constexpr RuleInfo kInfo{
        "GL306", "train-in-eval-mode",
        "a module left in evaluation mode by an evaluation pass is trained without train()",
        Severity::Warning, /*preview=*/true};
    return kInfo;
  }
  std::vector<std::string_view> markers() const override { return {".eval(", ".train("}; }
  // A training helper has no mode switch of its own: its summary says it trains its argument.
  std::vector<std::string_view> wordMarkers() const override { return {"backward"}; }

  void check(RuleContext& context) const override {
    const ir::ModuleIR& module = context.module();
    std::unique_ptr<FixSyntax> syntax; // parsed on the first fix only
    for (const ir::FunctionIR& fn : module.units) {
      const ir::ModuleModeReport report = ir::analyzeModuleMode(fn, context.summaries());
      for (const ir::TrainingInEvalMode& training : report.trainings) {
        const ir::Event& trained = fn.nodes[training.training].event;
        Diagnostic diagnostic = makeDiagnostic(trained.range);
        diagnostic.message = fmt::format(
            "`{}` is trained while still in evaluation mode: dropout stays off and batch-norm "
            "uses its running statistics instead of the batch's, with no error",
            training.module);
        diagnostic.help = fmt::format(
            "call `{0}{1}train()` after the evaluation pass, before training resumes (at the "
            "top of each training epoch)",
            training.module, module.language == ir::Language::Cpp ? "->" : ".");
        addEvaluation(context, fn, training, diagnostic);
        if (const ir::FunctionSummary* trainer = context.summaries().findFor(trained);
            trainer != nullptr && !trainer->trainPath.empty()) {
          diagnostic.related.push_back(
              {trainer->trainPath == module.path ? std::string() : trainer->trainPath,
               trainer->trainRange,
               fmt::format("`{}()` trains it here, in the mode its caller left", trained.spelled)});
        }
        if (module.language == ir::Language::Python && context.source() != nullptr) {
          if (!syntax) syntax = std::make_unique<FixSyntax>(*context.source());
          diagnostic.fix = trainModeFix(*syntax, trained.range, training.module);
        }
        context.report(std::move(diagnostic));
      }
    }
  }

private:
  static void addEvaluation(RuleContext& context, const ir::FunctionIR& fn,
                            const ir::TrainingInEvalMode& training, Diagnostic& diagnostic) {
    if (training.evaluation == ir::kNoNode) return;
    const ir::Event& evaluation = fn.nodes[training.evaluation].event;
    if (evaluation.kind != ir::EventKind::Call) {
      diagnostic.related.push_back(
          {std::string(), evaluation.range,
           fmt::format("`{}` is put in evaluation mode here", training.module)});
      return;
    }
    diagnostic.related.push_back(
        {std::string(), evaluation.range,
         fmt::format("`{}()` leaves `{}` in evaluation mode", evaluation.spelled,
                     training.module)});
    const ir::FunctionSummary* evaluator = context.summaries().findFor(evaluation);
    if (evaluator != nullptr && !evaluator->evalPath.empty()) {
      diagnostic.related.push_back(
          {evaluator->evalPath == context.module().path ? std::string() : evaluator->evalPath,
           evaluator->evalRange, "evaluation mode is set here"});
    }
  }
};

} // namespace
} // namespace gradlint::rules

GRADLINT_REGISTER_RULE(gradlint::rules::TrainInEvalMode)
