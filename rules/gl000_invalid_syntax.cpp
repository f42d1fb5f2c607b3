// GL000 invalid-syntax: the file does not parse. The frontend finds the error (and keeps
// analysing the definitions that do parse); this rule only publishes it.
#include "rules/rule.h"

namespace gradlint::rules {
namespace {

class InvalidSyntax final : public FrontendErrorRule {
public:
  const RuleInfo& info() const override {
    static constexpr RuleInfo kInfo{"GL000", "invalid-syntax",
                                    "The file has a syntax error; only what parses is analysed",
                                    Severity::Error};
    return kInfo;
  }
};

} // namespace
} // namespace gradlint::rules

GRADLINT_REGISTER_RULE(gradlint::rules::InvalidSyntax)
