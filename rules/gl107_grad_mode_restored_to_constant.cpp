// GL107 grad-mode-restored-to-constant: a function disables grad mode and then "restores" it
// with `set_grad_enabled(True)` instead of the mode it found. Called under `no_grad()` (an
// evaluation loop, a caller's inference), it turns gradients on for its caller.
#include "checkers/catalog/grad_mode_api.h"
#include "checkers/python/syntax.h"
#include "rules/fix_support.h"
#include "rules/grad_mode_leaks.h"

#include <fmt/format.h>

#include <algorithm>
#include <memory>
#include <unordered_map>

namespace gradlint::rules {
namespace {

using ir::EventKind;
using ir::NodeId;

bool isConstantEnable(const ir::Event& event) {
  return event.kind == EventKind::SetGrad && event.value == ir::GradValue::Enabled &&
         event.flavor != ir::ApiFlavor::ContextEnteredByHand;
}

// A toggle that certainly turns grad off (not `set_grad_enabled(flag)`).
bool disables(const ir::Event& event) {
  return event.kind == EventKind::Call ||
         (event.kind == EventKind::SetGrad && event.value == ir::GradValue::Disabled);
}

bool isPublicSetGradEnabled(const ir::Event& event) {
  return event.kind == EventKind::SetGrad && event.flavor == ir::ApiFlavor::Public &&
         catalog::classifyPythonName(event.callee) == catalog::GradApi::SetGradEnabled;
}

// `torch.set_grad_enabled(False)` ... `torch.set_grad_enabled(True)` as statements of one block
// -> save the mode before the toggle and restore the saved value. Safe: it changes behaviour
// only when the function is called with grad disabled, where it fixes the bug.
std::optional<Fix> saveAndRestoreFix(const FixSyntax& syntax, const ir::FunctionIR& fn,
                                     NodeId toggleId, NodeId restoreId) {
  const ir::Event& toggle = fn.nodes[toggleId].event;
  const ir::Event& restore = fn.nodes[restoreId].event;
  if (!isPublicSetGradEnabled(toggle) || !isPublicSetGradEnabled(restore)) return std::nullopt;
  const TSNode toggleStatement = syntax.standaloneCallStatement(toggle.range);
  const TSNode restoreStatement = syntax.standaloneCallStatement(restore.range);
  if (ts_node_is_null(toggleStatement) || ts_node_is_null(restoreStatement)) return std::nullopt;
  // The restore must follow the toggle in its block: the saved name is then bound wherever the
  // restore runs.
  const std::vector<TSNode> following = syntax.followingStatements(toggleStatement);
  if (std::none_of(following.begin(), following.end(),
                   [&](TSNode s) { return ts_node_eq(s, restoreStatement); })) {
    return std::nullopt;
  }
  const python::Fields& f = python::fields();
  const TSNode toggleCall = ts_node_named_child(toggleStatement, 0);
  const std::vector<std::string_view> spelled =
      dottedParts(python::field(toggleCall, f.function), syntax.source().bytes());
  if (spelled.size() < 2 || spelled.back() != "set_grad_enabled") return std::nullopt;
  std::string module;
  for (size_t i = 0; i + 1 < spelled.size(); ++i) {
    module += spelled[i];
    module += '.';
  }
  // The literal True of the restore, its only argument.
  const TSNode restoreCall = ts_node_named_child(restoreStatement, 0);
  std::vector<TSNode> arguments;
  for (TSNode argument : python::children(python::field(restoreCall, f.arguments))) {
    if (python::kindOf(argument) != python::Kind::comment) arguments.push_back(argument);
  }
  if (arguments.size() != 1 || python::kindOf(arguments.front()) != python::Kind::true_) {
    return std::nullopt;
  }
  // A copy: the source's text may be a temporary here.
  const std::string body(
      std::string_view(syntax.source().bytes())
          .substr(fn.range.startByte, fn.range.endByte - fn.range.startByte));
  std::string name;
  for (std::string_view candidate : {"prev", "prev_grad_enabled"}) {
    if (wordCount(body, candidate) == 0) {
      name = candidate;
      break;
    }
  }
  if (name.empty()) return std::nullopt;
  const uint32_t toggleStart = ts_node_start_byte(toggleStatement);
  const std::string_view bytes = syntax.source().bytes();
  const size_t lineStart = bytes.rfind('\n', toggleStart == 0 ? 0 : toggleStart - 1);
  const size_t indentStart = toggleStart == 0 || lineStart == std::string_view::npos
                                 ? 0
                                 : lineStart + 1;
  const std::string_view indent = bytes.substr(indentStart, toggleStart - indentStart);
  Fix fix;
  fix.applicability = Applicability::Safe;
  fix.message = fmt::format("Save `{}is_grad_enabled()` in `{}` before the toggle and restore it",
                            module, name);
  fix.edits.push_back(Edit{toggleStart, toggleStart,
                           fmt::format("{} = {}is_grad_enabled()\n{}", name, module, indent)});
  fix.edits.push_back(Edit{ts_node_start_byte(arguments.front()),
                           ts_node_end_byte(arguments.front()), name});
  return fix;
}

class GradModeRestoredToConstant final : public Rule {
public:
  const RuleInfo& info() const override {
    static constexpr RuleInfo kInfo{
        "GL107", "grad-mode-restored-to-constant",
        "Grad mode is restored with set_grad_enabled(True), not to the mode the function found",
        Severity::Warning};
    return kInfo;
  }

  void check(RuleContext& context) const override {
    const auto& units = context.module().units;
    const ir::Language language = context.module().language;
    std::unique_ptr<FixSyntax> syntax; // parsed on the first fix candidate only
    for (size_t index = 0; index < units.size(); ++index) {
      const ir::FunctionIR& fn = units[index];
      // Top-level code of a module or script: nothing calls it under no_grad().
      if (fn.kind != ir::UnitKind::Function && fn.kind != ir::UnitKind::Lambda) continue;
      if (fn.entry == ir::kNoNode || !hasConstantEnable(fn)) continue;
      const ir::GradStateReport& report = context.gradState(index);
      const ir::GradStateAnalysis analysis(&context.summaries(), fn.qualifiedName);
      struct Finding {
        NodeId restore;
        NodeId toggle;
        bool onlyToggle;
      };
      std::vector<Finding> findings;
      for (NodeId id = 0; id < fn.nodes.size(); ++id) {
        if (!report.flow.reached[id] || !isConstantEnable(fn.nodes[id].event)) continue;
        const ir::GradFact& in = report.flow.in[id];
        // A toggle in force here that replaced the caller's mode: this restore forgets that mode.
        auto replacedCallersMode = [&](NodeId toggle) {
          const ir::Node& node = fn.nodes[toggle];
          return report.flow.reached[toggle] && ir::callerDecides(report.flow.in[toggle]) &&
                 disables(node.event) && isToggle(node, analysis);
        };
        const auto toggle = std::find_if(in.open.begin(), in.open.end(), replacedCallersMode);
        if (toggle == in.open.end()) continue;
        const uint32_t at = fn.nodes[id].event.range.startByte;
        // Copies of a `finally` body hold copies of its restore: one finding per source place.
        if (std::any_of(findings.begin(), findings.end(), [&](const Finding& other) {
              return fn.nodes[other.restore].event.range.startByte == at;
            })) {
          continue;
        }
        findings.push_back({id, *toggle, in.open.size() == 1});
      }
      std::unordered_map<uint32_t, int> restoresPerToggle;
      for (const Finding& finding : findings) {
        ++restoresPerToggle[fn.nodes[finding.toggle].event.range.startByte];
      }
      for (const Finding& finding : findings) {
        const ir::Event& restore = fn.nodes[finding.restore].event;
        const ir::Event& toggle = fn.nodes[finding.toggle].event;
        Diagnostic diagnostic = makeDiagnostic(restore.range);
        const std::string who = displayName(fn);
        diagnostic.message = fmt::format(
            "{} turns grad mode on instead of restoring the mode `{}` found before {}: called "
            "with grad disabled (under `torch.no_grad()`, in an evaluation loop), it turns "
            "gradients on for its caller",
            describeToggle(fn, finding.restore, language), who,
            describeToggle(fn, finding.toggle, language));
        diagnostic.help =
            language == ir::Language::Cpp
                ? "save `c10::GradMode::is_enabled()` before the toggle and restore that value, "
                  "or use a `torch::NoGradGuard` / `c10::AutoGradMode` guard object"
                : "save `prev = torch.is_grad_enabled()` before the toggle and restore it with "
                  "`torch.set_grad_enabled(prev)` (in a `finally:` block), or use `with "
                  "torch.no_grad():`";
        diagnostic.related.push_back(
            {std::string(), toggle.range,
             "grad mode is disabled here, without saving the mode it replaces"});
        const bool single = finding.onlyToggle && restoresPerToggle[toggle.range.startByte] == 1;
        if (single && language == ir::Language::Python && context.source() != nullptr) {
          if (!syntax) syntax = std::make_unique<FixSyntax>(*context.source());
          diagnostic.fix = saveAndRestoreFix(*syntax, fn, finding.toggle, finding.restore);
        }
        context.report(std::move(diagnostic));
      }
    }
  }

private:
  static bool hasConstantEnable(const ir::FunctionIR& fn) {
    return std::any_of(fn.nodes.begin(), fn.nodes.end(),
                       [](const ir::Node& node) { return isConstantEnable(node.event); });
  }
};

} // namespace
} // namespace gradlint::rules

GRADLINT_REGISTER_RULE(gradlint::rules::GradModeRestoredToConstant)
