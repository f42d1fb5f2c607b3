// GL105 grad-context-not-entered: a grad-mode context manager that is never (properly)
// entered: `torch.no_grad()` as a statement does nothing, `with torch.no_grad:` raises, and
// `torch.no_grad().__enter__()` can never be exited.
#include "checkers/catalog/grad_mode_api.h"
#include "checkers/python/syntax.h"
#include "rules/cpp_guard_fix.h"
#include "rules/fix_support.h"
#include "rules/grad_mode_leaks.h"

#include <fmt/format.h>

#include <memory>

namespace gradlint::rules {
namespace {

// `with torch.no_grad:` -> `with torch.no_grad():`. Safe: the statement can only raise a
// TypeError as written. Not for `set_grad_enabled`, whose call needs the mode.
std::optional<Fix> callTheContextFix(const FixSyntax& syntax, const ir::Event& event) {
  const catalog::GradApi api = catalog::classifyPythonName(event.callee);
  if (api != catalog::GradApi::NoGrad && api != catalog::GradApi::EnableGrad &&
      api != catalog::GradApi::InferenceMode) {
    return std::nullopt;
  }
  const TSNode value = syntax.nodeAt(event.range);
  if (ts_node_is_null(value) || dottedParts(value, syntax.source().bytes()).empty()) {
    return std::nullopt;
  }
  Fix fix;
  fix.applicability = Applicability::Safe;
  fix.message = fmt::format("Call it: `with {}():`", syntax.text(value));
  fix.edits.push_back(Edit{event.range.endByte, event.range.endByte, "()"});
  return fix;
}

// A bare `torch.no_grad()` statement -> `with torch.no_grad():` over the rest of its block.
// Unsafe: the code below starts running without gradients, which is what the author meant but
// changes what it computes (and the block may go on further than intended).
std::optional<Fix> enterForRestOfBlockFix(const FixSyntax& syntax, const ir::FunctionIR& fn,
                                          const ir::Event& event) {
  // In a generator or coroutine the new `with` would span suspensions, and grad mode would
  // leak to whatever runs meanwhile (GL101's finding, which the `with` hides from it).
  if (fn.isGenerator || fn.isAsync) return std::nullopt;
  const TSNode statement = syntax.standaloneCallStatement(event.range);
  if (ts_node_is_null(statement)) return std::nullopt;
  const TSNode call = ts_node_named_child(statement, 0);
  // `torch.no_grad()`, not `torch.no_grad().__enter__()`.
  const TSNode function = python::field(call, python::fields().function);
  if (dottedParts(function, syntax.source().bytes()).empty()) return std::nullopt;
  const std::vector<TSNode> following = syntax.followingStatements(statement);
  if (following.empty()) return std::nullopt; // a `with` needs a body
  Fix fix;
  fix.applicability = Applicability::Unsafe;
  const std::string header = fmt::format("with {}:", syntax.text(call));
  fix.message = fmt::format("Wrap the rest of the block in `{}`", header);
  fix.edits.push_back(Edit{ts_node_start_byte(statement), ts_node_end_byte(statement), header});
  const std::vector<Edit> indents =
      syntax.indentLines(syntax.endLine(statement) + 1, syntax.endLine(following.back()),
                         syntax.indentUnit(syntax.startLine(statement)));
  fix.edits.insert(fix.edits.end(), indents.begin(), indents.end());
  return fix;
}

class GradContextNotEntered final : public Rule {
public:
  const RuleInfo& info() const override {
    static constexpr RuleInfo kInfo{
        "GL105", "grad-context-not-entered",
        "A grad-mode context manager is created but not entered with `with`", Severity::Error};
    return kInfo;
  }

  void check(RuleContext& context) const override {
    std::unique_ptr<FixSyntax> syntax; // parsed on the first fix candidate only
    auto fixSyntax = [&]() -> const FixSyntax* {
      if (context.source() == nullptr) return nullptr;
      if (!syntax) syntax = std::make_unique<FixSyntax>(*context.source());
      return syntax.get();
    };
    for (const ir::FunctionIR& fn : context.module().units) {
      for (const ir::Node& node : fn.nodes) {
        const ir::Event& event = node.event;
        Diagnostic diagnostic;
        if (event.kind == ir::EventKind::Call && event.resultDiscarded &&
            catalog::isGradContext(catalog::classifyPythonName(event.callee)) &&
            event.var == "__enter__") {
          diagnostic.message = fmt::format(
              "`{}().__enter__()` does nothing lasting: the mode lives in the context object, "
              "which is freed at the end of the statement",
              event.callee);
          diagnostic.help = fmt::format("use `with {}():` around the code", event.callee);
        } else if (event.kind == ir::EventKind::Call && event.resultDiscarded &&
                   catalog::isGradContext(catalog::classifyPythonName(event.callee))) {
          diagnostic.message = fmt::format(
              "`{}()` as a statement does nothing: the context manager is created and thrown "
              "away, so grad mode is unchanged for the code below",
              event.callee);
          diagnostic.help = fmt::format(
              "put the code under `with {}():`, or decorate the function with `@{}()`",
              event.callee, event.callee);
          if (const FixSyntax* fixes = fixSyntax()) {
            diagnostic.fix = enterForRestOfBlockFix(*fixes, fn, event);
          }
        } else if (event.kind == ir::EventKind::EnterGuard && event.guardNotCalled) {
          diagnostic.message = fmt::format(
              "`with {}:` enters the class instead of an instance and fails at run time with "
              "a TypeError",
              event.callee);
          diagnostic.help = fmt::format("call it: `with {}():`", event.callee);
          if (const FixSyntax* fixes = fixSyntax()) {
            diagnostic.fix = callTheContextFix(*fixes, event);
          }
        } else if (event.kind == ir::EventKind::SetGrad &&
                   event.flavor == ir::ApiFlavor::ContextEnteredByHand) {
          diagnostic.message = fmt::format(
              "`{}().__enter__()` changes grad mode and drops the context object, so nothing "
              "can call `__exit__`: grad mode stays changed after this code",
              event.callee);
          diagnostic.help = fmt::format("use `with {}():` around the code", event.callee);
        } else if (event.kind == ir::EventKind::EnterGuard && event.guardTemporary) {
          // C++: `torch::NoGradGuard();` is destroyed at the `;`, restoring the mode at once.
          const std::string type = event.spelled.empty() ? event.callee : event.spelled;
          const std::string written =
              context.source() != nullptr
                  ? std::string(cppfix::textOf(*context.source(), event.range))
                  : type + "()";
          diagnostic.message = fmt::format(
              "`{}` creates an unnamed `{}` that is destroyed at the end of this statement, so "
              "{}",
              written, type, cppfix::missedEffect(event.guard));
          std::string name = "guard";
          if (context.source() != nullptr) {
            name = cppfix::freshGuardName(*context.source(), fn, event.guard);
            diagnostic.fix = cppfix::nameTheTemporaryFix(*context.source(), event, name);
          }
          // `T()` -> `T name;` (not `T name();`, GL106); `T(false)` -> `T name(false);`.
          std::string_view arguments = written;
          arguments = arguments.starts_with(type) ? cppfix::trim(arguments.substr(type.size()))
                                                  : std::string_view();
          if (arguments == "()") arguments = {};
          diagnostic.help = fmt::format(
              "give the guard a name so that it lives to the end of the scope: `{} {}{};`", type,
              name, arguments);
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
