// The clang-tidy module: one check per gradlint rule that applies to C++, running the same
// lowering (checkers/cpp/lowering.h) and the same rule code as `gradlint check`.
//
//   clang-tidy-19 -load=build/lib/libgradlint-tidy.so -checks='-*,gradlint-*' file.cpp -- ...
//
// Built as a plugin against the host's clang-tidy (it exports the clangTidy symbols): load it
// only into clang-tidy 19.
#include "checkers/cpp/lowering.h"
#include "checkers/ir/summaries.h"
#include "rules/rule.h"

#include <clang-tidy/ClangTidyCheck.h>
#include <clang-tidy/ClangTidyModule.h>
#include <clang-tidy/ClangTidyModuleRegistry.h>
#include <clang/ASTMatchers/ASTMatchFinder.h>
#include <clang/ASTMatchers/ASTMatchers.h>

#include <array>
#include <memory>
#include <string_view>

namespace gradlint::tidy {
namespace {

// The rules whose findings the C++ frontend can produce.
constexpr std::array<std::string_view, 9> kCppRules = {"GL101", "GL104", "GL105", "GL106", "GL301",
                                                     "GL302", "GL303", "GL304", "GL305"};

// One lowering per translation unit, shared by the checks (each check runs one rule).
struct SharedAnalysis {
  const clang::ASTContext* context = nullptr;
  std::unique_ptr<SourceText> source;
  cpp::LoweredTranslationUnit lowered;
  ir::SummaryTable summaries;
};

SharedAnalysis& shared() {
  static SharedAnalysis analysis;
  return analysis;
}

class RuleCheck : public clang::tidy::ClangTidyCheck {
public:
  RuleCheck(llvm::StringRef name, clang::tidy::ClangTidyContext* context, const rules::Rule* rule)
      : ClangTidyCheck(name, context), rule_(rule) {}

  bool isLanguageVersionSupported(const clang::LangOptions& options) const override {
    return options.CPlusPlus;
  }

  void registerMatchers(clang::ast_matchers::MatchFinder* finder) override {
    finder->addMatcher(clang::ast_matchers::translationUnitDecl().bind("tu"), this);
  }

  void onEndOfTranslationUnit() override { shared() = SharedAnalysis{}; }

  void check(const clang::ast_matchers::MatchFinder::MatchResult& result) override {
    clang::ASTContext& context = *result.Context;
    const clang::SourceManager& sources = context.getSourceManager();
    const clang::FileID main = sources.getMainFileID();
    SharedAnalysis& analysis = shared();
    if (analysis.context != &context) {
      analysis = SharedAnalysis{};
      analysis.source = std::make_unique<SourceText>(
          sources.getFilename(sources.getLocForStartOfFile(main)).str(),
          sources.getBufferData(main).str());
      analysis.lowered = cpp::lowerTranslationUnit(context, *analysis.source);
      analysis.summaries = ir::computeSummaries({&analysis.lowered.module});
      analysis.context = &context;
    }
    static const std::vector<Diagnostic> kNoFrontendDiagnostics;
    rules::RuleContext ruleContext(analysis.lowered.module, analysis.summaries,
                                   kNoFrontendDiagnostics, analysis.source.get());
    rule_->check(ruleContext);
    const size_t size = analysis.source->bytes().size();
    auto at = [&](uint32_t byte) {
      return sources.getComposedLoc(main, std::min<uint32_t>(byte, static_cast<uint32_t>(size)));
    };
    for (const Diagnostic& finding : ruleContext.takeDiagnostics()) {
      const clang::SourceLocation begin = at(finding.range.startByte);
      {
        auto builder = diag(begin, "%0") << finding.message;
        builder << clang::CharSourceRange::getCharRange(begin, at(finding.range.endByte));
        if (finding.fix) {
          for (const Edit& edit : finding.fix->edits) {
            builder << clang::FixItHint::CreateReplacement(
                clang::CharSourceRange::getCharRange(at(edit.startByte), at(edit.endByte)),
                edit.replacement);
          }
        }
      }
      for (const RelatedLocation& related : finding.related) {
        if (!related.path.empty()) continue; // another file of a run: not in this TU
        diag(at(related.range.startByte), "%0", clang::DiagnosticIDs::Note) << related.message;
      }
      if (!finding.help.empty()) {
        diag(begin, "%0", clang::DiagnosticIDs::Note) << ("help: " + finding.help);
      }
    }
  }

private:
  const rules::Rule* rule_;
};

class GradlintModule : public clang::tidy::ClangTidyModule {
public:
  void addCheckFactories(clang::tidy::ClangTidyCheckFactories& factories) override {
    for (std::string_view code : kCppRules) {
      const rules::Rule* rule = rules::findRule(code);
      if (rule == nullptr) continue;
      factories.registerCheckFactory(
          "gradlint-" + std::string(rule->info().name),
          [rule](llvm::StringRef name, clang::tidy::ClangTidyContext* context) {
            return std::make_unique<RuleCheck>(name, context, rule);
          });
    }
  }
};

} // namespace
} // namespace gradlint::tidy

static clang::tidy::ClangTidyModuleRegistry::Add<gradlint::tidy::GradlintModule>
    kGradlintModule("gradlint-module", "gradlint: PyTorch grad-mode misuse in C++ (LibTorch)");
