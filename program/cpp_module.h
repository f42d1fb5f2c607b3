// Opens the C++ checker module (checkers/cpp/checker_module.h) the first time a run needs it.
#pragma once

#include <string>
#include <vector>

namespace gradlint {

namespace cpp {
class CheckerModule;
struct RuleName;
} // namespace cpp

// The C++ checker, loaded once per process (thread-safe); null when it is missing or from
// another build, with `error` set to a message for the user that names the C++ module.
const cpp::CheckerModule* cppCheckerModule(std::string& error);

// The rules a NOLINT comment in C++ can name (code and check name), for
// CheckerModule::analyzeFile: the checkers below the rules layer do not know the rules.
const std::vector<cpp::RuleName>& cppRuleNames();

} // namespace gradlint
