// GL000 invalid-syntax: the file does not parse. The frontend finds the error (and keeps
// analysing the definitions that do parse); this rule only publishes it.
#include "rules/rule.h"

namespace gradlint::rules {
namespace {

class InvalidSyntax final : public Rule {
public:
  const RuleInfo& info() const override {
    static constexpr RuleInfo kInfo{"GL000", "invalid-syntax",
                                    "The file has a syntax error; only what parses is analysed",
                                    Severity::Error};
    return kInfo;
  }
  // Reported for every file that is parsed for another rule; never a reason to parse one.
  std::vector<std::string_view> markers() const override { return {}; }

  void check(RuleContext& context) const override {
    for (const Diagnostic& diagnostic : context.frontendDiagnostics()) {
      if (diagnostic.code == info().code) context.report(diagnostic);
    }
  }
};

} // namespace
} // namespace gradlint::rules

GRADLINT_REGISTER_RULE(gradlint::rules::InvalidSyntax)
