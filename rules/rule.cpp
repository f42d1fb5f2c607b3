#include "rules/rule.h"

#include <algorithm>

namespace gradlint::rules {
namespace {

std::vector<const Rule*>& registry() {
  static std::vector<const Rule*> rules;
  return rules;
}

} // namespace

RuleRegistrar::RuleRegistrar(const Rule* rule) {
  auto& rules = registry();
  rules.insert(std::upper_bound(rules.begin(), rules.end(), rule,
                                [](const Rule* a, const Rule* b) {
                                  return a->info().code < b->info().code;
                                }),
               rule);
}

const std::vector<const Rule*>& allRules() { return registry(); }

const Rule* findRule(std::string_view code) {
  for (const Rule* rule : registry()) {
    if (rule->info().code == code) return rule;
  }
  return nullptr;
}

RuleContext::RuleContext(const ir::ModuleIR& module, const ir::SummaryTable& summaries,
                         const std::vector<Diagnostic>& frontendDiagnostics,
                         const SourceText* source, const ir::GradStateReports* precomputed)
    : module_(module), summaries_(summaries), frontendDiagnostics_(frontendDiagnostics),
      source_(source), precomputed_(precomputed), gradStates_(module.units.size()) {}

const ir::GradStateReport& RuleContext::gradState(size_t unitIndex) {
  if (precomputed_ != nullptr) {
    const auto found = precomputed_->find(&module_.units[unitIndex]);
    if (found != precomputed_->end()) return found->second;
  }
  auto& slot = gradStates_[unitIndex];
  if (!slot) slot = ir::analyzeGradState(module_.units[unitIndex], &summaries_);
  return *slot;
}

} // namespace gradlint::rules
