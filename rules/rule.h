// The rule interface. One rule = one file in rules/ that defines a Rule subclass with its
// metadata and registers it with GRADLINT_REGISTER_RULE; its documentation is
// docs/rules/<CODE>.md, compiled into the binary.
#pragma once

#include "checkers/ir/diagnostic.h"
#include "checkers/ir/grad_state.h"
#include "checkers/ir/summaries.h"
#include "checkers/python/source_text.h"

#include <memory>
#include <optional>
#include <string_view>
#include <vector>

namespace gradlint::rules {

struct RuleInfo {
  std::string_view code;    // stable: GL101
  std::string_view name;    // stable kebab-case: grad-mode-leak
  std::string_view summary; // one line, for `gradlint rule --all` and SARIF shortDescription
  Severity severity = Severity::Error;
  bool preview = false; // off unless selected explicitly
};

// What a rule sees of one file: its IR, the run's summaries, and shared analysis results.
class RuleContext {
public:
  // `source` is the file's text, for rules that build fixes (byte edits); may be null.
  // `precomputed`: analyses made while summarising, valid for `summaries` (may be null).
  RuleContext(const ir::ModuleIR& module, const ir::SummaryTable& summaries,
              const std::vector<Diagnostic>& frontendDiagnostics,
              const SourceText* source = nullptr,
              const ir::GradStateReports* precomputed = nullptr);

  const ir::ModuleIR& module() const { return module_; }
  const ir::SummaryTable& summaries() const { return summaries_; }
  const std::vector<Diagnostic>& frontendDiagnostics() const { return frontendDiagnostics_; }
  const SourceText* source() const { return source_; }
  // The grad-state dataflow of one unit, computed once and shared by every rule.
  const ir::GradStateReport& gradState(size_t unitIndex);

  void report(Diagnostic diagnostic) { diagnostics_.push_back(std::move(diagnostic)); }
  std::vector<Diagnostic> takeDiagnostics() { return std::move(diagnostics_); }

private:
  const ir::ModuleIR& module_;
  const ir::SummaryTable& summaries_;
  const std::vector<Diagnostic>& frontendDiagnostics_;
  const SourceText* source_;
  const ir::GradStateReports* precomputed_;
  std::vector<std::optional<ir::GradStateReport>> gradStates_;
  std::vector<Diagnostic> diagnostics_;
};

class Rule {
public:
  virtual ~Rule() = default;
  virtual const RuleInfo& info() const = 0;
  virtual void check(RuleContext& context) const = 0;
  // Text one of which a file must contain for this rule to find anything in it: files that
  // contain none of the selected rules' markers are not parsed at all.
  // The default covers the grad-mode API: set/is/_set_grad_enabled, no_grad, enable_grad,
  // inference_mode (aliases imported `as` another name are followed by the engine).
  virtual std::vector<std::string_view> markers() const {
    return {"grad_enabled", "no_grad", "enable_grad", "inference_mode"};
  }
  // Markers that count only as whole identifiers outside comments and strings: `backward`
  // matters in `loss.backward()`, not in `_backward_hooks` (torch mentions it everywhere).
  virtual std::vector<std::string_view> wordMarkers() const { return {}; }
  // Python partial parsing: a mention of a marker inside a method normally makes only that
  // method (and its class header) worth parsing; a rule that follows `self.attr` from method to
  // method needs the whole class once a parsed method places a model (engine.cpp's
  // classesToComplete).
  virtual bool needsWholeClass() const { return false; }
  // Functions with an event of this kind need every call site seen (the rule asks the summaries
  // how they are called): the engine parses their callers even where no marker is named.
  virtual std::optional<ir::EventKind> needsCallersOf() const { return std::nullopt; }

protected:
  // A diagnostic of this rule at `range`, with its code and severity filled in.
  Diagnostic makeDiagnostic(const ir::SourceRange& range) const {
    Diagnostic diagnostic;
    diagnostic.code = std::string(info().code);
    diagnostic.severity = info().severity;
    diagnostic.range = range;
    return diagnostic;
  }
};

// A rule that publishes what a frontend found (GL000's syntax errors, GL001's compile errors):
// the frontend reports them, with what it could still analyse; the rule passes on those of its
// code. Reported for every file parsed for another rule, never a reason to parse one.
class FrontendErrorRule : public Rule {
public:
  std::vector<std::string_view> markers() const override { return {}; }
  void check(RuleContext& context) const override {
    for (const Diagnostic& diagnostic : context.frontendDiagnostics()) {
      if (diagnostic.code == info().code) context.report(diagnostic);
    }
  }
};

// Every registered rule, sorted by code.
const std::vector<const Rule*>& allRules();
const Rule* findRule(std::string_view code);
// The rule's documentation page (docs/rules/<CODE>.md), or "" when it has none.
std::string_view ruleDocumentation(std::string_view code);

struct RuleRegistrar {
  explicit RuleRegistrar(const Rule* rule);
};

#define GRADLINT_REGISTER_RULE(Type)                                                             \
  namespace {                                                                                    \
  const Type kRuleInstance;                                                                      \
  const ::gradlint::rules::RuleRegistrar kRuleRegistrar(&kRuleInstance);                         \
  }

} // namespace gradlint::rules
