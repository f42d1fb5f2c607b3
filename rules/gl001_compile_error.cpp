// GL001 compile-error: a C++ file does not compile with its flags. The C++ frontend finds the
// first error (and keeps analysing what Clang could recover); this rule only publishes it.
// Counted apart from GL000 (a Python syntax error), as clang-tidy's `clang-diagnostic-error` is
// apart from its checks: on by default and kept by `--select`, but `--ignore GL001` and the
// configuration's ignores turn it off. No comment silences it (program/engine.cpp).
#include "rules/rule.h"

namespace gradlint::rules {
namespace {

class CompileError final : public FrontendErrorRule {
public:
  const RuleInfo& info() const override {
    static constexpr RuleInfo kInfo{"GL001", "compile-error",
                                    "A C++ file does not compile with its flags; only what Clang "
                                    "could recover is analysed",
                                    Severity::Error};
    return kInfo;
  }
};

} // namespace
} // namespace gradlint::rules

GRADLINT_REGISTER_RULE(gradlint::rules::CompileError)
