// GL101 grad-mode-leak: a toggle disables grad mode and a normal exit (return, end of body,
// yield, await) leaves it disabled, so the caller and everything after it lose gradients.
#include "checkers/catalog/grad_mode_api.h"
#include "checkers/python/syntax.h"
#include "rules/fix_support.h"
#include "rules/grad_mode_leaks.h"

#include <fmt/format.h>

#include <algorithm>
#include <memory>
#include <unordered_set>

namespace gradlint::rules {
namespace {

// The byte ranges (start << 32 | end) of the calls in `fn` that the IR reads as public
// `set_grad_enabled(True)` or `set_grad_enabled(saved)` restores.
std::unordered_set<uint64_t> restoreCalls(const ir::FunctionIR& fn) {
  std::unordered_set<uint64_t> ranges;
  for (const ir::Node& node : fn.nodes) {
    const ir::Event& event = node.event;
    if (event.flavor != ir::ApiFlavor::Public ||
        catalog::classifyPythonName(event.callee) != catalog::GradApi::SetGradEnabled) {
      continue;
    }
    if ((event.kind == ir::EventKind::SetGrad && event.value == ir::GradValue::Enabled) ||
        event.kind == ir::EventKind::RestoreGrad || event.kind == ir::EventKind::RestoreArg) {
      ranges.insert(uint64_t{event.range.startByte} << 32 | event.range.endByte);
    }
  }
  return ranges;
}

// The statement right before `toggle` that saves the mode (`prev = torch.is_grad_enabled()`)
// when `restore` (`torch.set_grad_enabled(prev)`) is the only other mention of `prev` in `fn`.
TSNode savedModeFor(const FixSyntax& syntax, const ir::FunctionIR& fn, TSNode toggle,
                    TSNode restore) {
  const python::Fields& f = python::fields();
  TSNode save = ts_node_prev_named_sibling(toggle);
  if (ts_node_is_null(save) || python::kindOf(save) != python::Kind::expression_statement ||
      ts_node_named_child_count(save) != 1) {
    return {};
  }
  const TSNode assignment = ts_node_named_child(save, 0);
  if (python::kindOf(assignment) != python::Kind::assignment) return {};
  const TSNode target = python::field(assignment, f.left);
  const TSNode value = python::field(assignment, f.right);
  if (python::kindOf(target) != python::Kind::identifier ||
      python::kindOf(value) != python::Kind::call ||
      syntax.startLine(save) == syntax.startLine(toggle)) {
    return {};
  }
  const std::vector<std::string_view> callee =
      dottedParts(python::field(value, f.function), syntax.source().bytes());
  if (callee.empty() || callee.back() != "is_grad_enabled") return {};
  const TSNode restoreCall = ts_node_named_child(restore, 0);
  std::vector<TSNode> arguments;
  for (TSNode argument : python::children(python::field(restoreCall, f.arguments))) {
    if (python::kindOf(argument) != python::Kind::comment) arguments.push_back(argument);
  }
  const std::string_view name = syntax.text(target);
  if (arguments.size() != 1 || syntax.text(arguments.front()) != name) return {};
  const std::string_view body = std::string_view(syntax.source().bytes())
                                    .substr(fn.range.startByte,
                                            fn.range.endByte - fn.range.startByte);
  return wordCount(body, name) == 2 ? save : TSNode{};
}

// `torch.set_grad_enabled(False)` ... `torch.set_grad_enabled(True)` as statements of one block
// -> `with torch.no_grad():` over the statements between them, restore deleted. Unsafe: the
// `with` restores the mode found on entry where the original forced True, and it also restores
// on the early exits that leaked (the point of the fix, but a change of behaviour).
std::optional<Fix> withBlockFix(const FixSyntax& syntax, const ir::FunctionIR& fn,
                                ir::NodeId toggleId) {
  // A `with` around a `yield` or `await` still leaks the mode to whoever runs while this
  // frame is suspended: the rewrite would hide the finding, not fix it.
  if (fn.isGenerator || fn.isAsync) return std::nullopt;
  const ir::Event& toggle = fn.nodes[toggleId].event;
  if (toggle.kind != ir::EventKind::SetGrad || toggle.value != ir::GradValue::Disabled ||
      toggle.flavor != ir::ApiFlavor::Public ||
      catalog::classifyPythonName(toggle.callee) != catalog::GradApi::SetGradEnabled) {
    return std::nullopt;
  }
  const TSNode statement = syntax.standaloneCallStatement(toggle.range);
  if (ts_node_is_null(statement)) return std::nullopt;
  const python::Fields& f = python::fields();
  const TSNode call = ts_node_named_child(statement, 0);
  // Spelled on a module (`torch.`, `th.`, `torch.autograd.`), whose `no_grad` the `with` uses.
  const std::vector<std::string_view> spelled =
      dottedParts(python::field(call, f.function), syntax.source().bytes());
  if (spelled.size() < 2 || spelled.back() != "set_grad_enabled") return std::nullopt;
  // Exactly one argument, the literal False.
  std::vector<TSNode> arguments;
  for (TSNode argument : python::children(python::field(call, f.arguments))) {
    if (python::kindOf(argument) != python::Kind::comment) arguments.push_back(argument);
  }
  if (arguments.size() != 1 || python::kindOf(arguments.front()) != python::Kind::false_) {
    return std::nullopt;
  }
  const std::vector<TSNode> following = syntax.followingStatements(statement);
  const std::unordered_set<uint64_t> restores = restoreCalls(fn);
  auto isRestore = [&](TSNode candidate) {
    if (!syntax.isStandaloneCallStatement(candidate)) return false;
    const TSNode restoreCall = ts_node_named_child(candidate, 0);
    return restores.count(uint64_t{ts_node_start_byte(restoreCall)} << 32 |
                          ts_node_end_byte(restoreCall)) > 0;
  };
  size_t restore = 0;
  while (restore < following.size() && !isRestore(following[restore])) ++restore;
  // No restore in this block, or nothing between toggle and restore to put in the `with`.
  if (restore == 0 || restore == following.size()) return std::nullopt;

  std::string module;
  for (size_t i = 0; i + 1 < spelled.size(); ++i) {
    module += spelled[i];
    module += '.';
  }
  Fix fix;
  fix.applicability = Applicability::Unsafe;
  const std::string header = fmt::format("with {}no_grad():", module);
  fix.message = fmt::format("Use `{}` around the code up to the restore", header);
  fix.edits.push_back(Edit{ts_node_start_byte(statement), ts_node_end_byte(statement), header});
  const TSNode restoreStatement = following[restore];
  const std::vector<Edit> indents =
      syntax.indentLines(syntax.endLine(statement) + 1, syntax.startLine(restoreStatement) - 1,
                         syntax.indentUnit(syntax.startLine(statement)));
  fix.edits.insert(fix.edits.end(), indents.begin(), indents.end());
  fix.edits.push_back(syntax.deleteLines(restoreStatement));
  // `prev = torch.is_grad_enabled()` just before the toggle, read only by the deleted restore
  // (GL107's fix leaves this shape): the `with` saves the mode itself, so the save goes too.
  const TSNode save = savedModeFor(syntax, fn, statement, restoreStatement);
  if (!ts_node_is_null(save)) fix.edits.push_back(syntax.deleteLines(save));
  return fix;
}

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
    std::unique_ptr<FixSyntax> syntax; // parsed on the first finding only
    for (size_t index = 0; index < units.size(); ++index) {
      const ir::FunctionIR& fn = units[index];
      for (const SessionLeak& leak : sessionLeaks(context, index)) {
        context.report(sessionDiagnostic(context, index, leak));
      }
      if (fn.kind == ir::UnitKind::Module || importTimeClassBody(context, fn)) continue;
      for (const ir::Leak& leak : reportableLeaks(context, index)) {
        if (leak.exceptional) continue; // GL104
        Diagnostic diagnostic = leakDiagnostic(context, index, leak);
        diagnostic.code = std::string(info().code);
        diagnostic.severity = info().severity;
        const bool cpp = context.module().language == ir::Language::Cpp;
        diagnostic.message = message(context, fn, leak);
        if (const ir::FunctionIR* exit = exitThatKeepsEnterMode(context, fn)) {
          // A context manager's enter half: the `with` block is where the mode leaks.
          diagnostic.message = fmt::format(
              "{} disables grad mode in `{}` and `{}` never restores it; every `with` block "
              "over this class leaves gradients off after it",
              describeToggle(fn, leak.toggle, context.module().language), displayName(fn),
              displayName(*exit));
          diagnostic.related.push_back(
              {std::string(), exit->nameRange,
               "`__exit__` runs at the end of the `with` block and leaves grad mode as it is"});
        }
        diagnostic.help =
            cpp ? "use a `torch::NoGradGuard` / `c10::AutoGradMode` guard object, which restores "
                  "the mode when it goes out of scope, or save `c10::GradMode::is_enabled()` "
                  "first and restore it on every path"
                : "wrap the code in `with torch.no_grad():` (or decorate the function "
                  "with `@torch.no_grad()`), or save `torch.is_grad_enabled()` first "
                  "and restore it in a `finally:` block";
        const ir::Event& toggle = fn.nodes[leak.toggle].event;
        if (toggle.kind == ir::EventKind::Call && toggle.importsModule) {
          diagnostic.help = std::string(kImportLeakHelp);
        }
        if (context.source() != nullptr && !cpp) {
          if (!syntax) syntax = std::make_unique<FixSyntax>(*context.source());
          diagnostic.fix = withBlockFix(*syntax, fn, leak.toggle);
        }
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
  // A toggle at a session's top level that a later statement trains under. The end of the
  // session is no leak: an inference notebook that disables grad once means it.
  Diagnostic sessionDiagnostic(RuleContext& context, size_t index, const SessionLeak& leak) const {
    const ir::FunctionIR& fn = context.module().units[index];
    Diagnostic diagnostic;
    diagnostic.code = std::string(info().code);
    diagnostic.severity = info().severity;
    diagnostic.range = fn.nodes[leak.toggle].event.range;
    addWitness(context, index, leak.toggle, leak.training, diagnostic);
    const ir::Event& toggle = fn.nodes[leak.toggle].event;
    diagnostic.message = fmt::format(
        "{} {} grad mode for the rest of the session, and a later {} runs with it still "
        "disabled: it computes no gradients",
        describeToggle(fn, leak.toggle),
        toggle.kind == ir::EventKind::SetGrad && toggle.value == ir::GradValue::Unknown
            ? "may disable"
            : "disables",
        leak.what);
    diagnostic.help = "run the inference code under `with torch.no_grad():` instead, so the mode "
                      "is restored when the block ends, or call `torch.set_grad_enabled(True)` "
                      "before training";
    diagnostic.related.push_back({std::string(), fn.nodes[leak.training].event.range,
                                  fmt::format("{} runs here with grad mode still disabled",
                                              leak.what)});
    return diagnostic;
  }

  static std::string message(RuleContext& context, const ir::FunctionIR& fn,
                             const ir::Leak& leak) {
    const ir::Language language = context.module().language;
    const ir::Event& toggle = fn.nodes[leak.toggle].event;
    const ir::EventKind exit = fn.nodes[leak.exit].event.kind;
    const std::string who = displayName(fn);
    const std::string what = describeToggle(fn, leak.toggle, language);
    const bool suspends = exit == ir::EventKind::Yield || exit == ir::EventKind::Await;
    const std::string consequence =
        suspends ? "its caller runs with gradients off while it is suspended"
                 : "every later `backward()` in this thread computes no gradients";
    if (toggle.kind == ir::EventKind::Call && toggle.importsModule) {
      const ImportChain chain = importChain(context.summaries(), toggle);
      return fmt::format("{} leaves grad mode disabled ({}) and `{}` {} without restoring it; {}",
                         what,
                         chain.modules.empty() ? std::string("its top level disables it")
                                               : importChainText(chain, "disables it"),
                         who, suspends ? "suspends" : "returns", consequence);
    }
    if (const auto argument = toggle.kind == ir::EventKind::Call
                                  ? falseModeArgument(context.summaries(), toggle)
                                  : std::nullopt) {
      // `run_epoch(model, loader, train=False)`: the helper sets the mode to its argument.
      return fmt::format("{} sets grad mode from its `{}` argument, False here{}, and `{}` {} "
                         "with it still disabled; {}",
                         what, argument->param, argument->byDefault ? " (its default)" : "", who,
                         suspends ? "suspends" : "returns", consequence);
    }
    if (toggle.kind == ir::EventKind::Call) {
      return fmt::format("{} returns with grad mode disabled and `{}` {} without restoring it; {}",
                         what, who, suspends ? "suspends" : "returns", consequence);
    }
    if (isClassWithEvent(toggle)) {
      const std::string_view name = shortName(toggle.callee);
      const std::string how =
          toggle.kind == ir::EventKind::EnterGuard
              ? fmt::format("`{0}.__exit__` does not restore what `{0}.__enter__` disabled", name)
              : fmt::format("`{}.__exit__` disables it", name);
      return fmt::format("{} leaves grad mode disabled after its block ({}) and `{}` {} without "
                         "restoring it; {}",
                         what, how, who, suspends ? "suspends" : "returns", consequence);
    }
    const char* verb = toggle.value == ir::GradValue::Unknown ? "may disable" : "disables";
    const bool contextManager =
        std::any_of(fn.decorators.begin(), fn.decorators.end(),
                    [](const std::string& d) { return catalog::isContextManagerDecorator(d); });
    if (contextManager && !suspends) {
      // The code after the yield is the with block's exit: it had to restore.
      return fmt::format("{} {} grad mode before the `yield` of `{}`, and the code after it never "
                         "restores it; every `with` block over `{}` leaves gradients off after it",
                         what, verb, who, who);
    }
    return fmt::format("{} {} grad mode and `{}` {} with it still disabled; {}", what, verb, who,
                       suspends ? (exit == ir::EventKind::Yield ? "yields" : "awaits")
                                : "returns",
                       consequence);
  }
};

} // namespace
} // namespace gradlint::rules

GRADLINT_REGISTER_RULE(gradlint::rules::GradModeLeak)
