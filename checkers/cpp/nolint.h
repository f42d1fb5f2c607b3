// clang-tidy's suppression comments, read from C++ source for `gradlint check`:
//   // NOLINT                       every rule on this line
//   // NOLINT(gradlint-grad-mode-leak, GL104)   named checks (globs, `-` negates) or GL codes
//   // NOLINTNEXTLINE(...)          the next line
//   // NOLINTBEGIN(...) ... // NOLINTEND(...)   every line in between (the lists must match)
// A list that names no gradlint rule (`NOLINT(bugprone-*)`) suppresses nothing of ours.
// Inside clang-tidy, clang-tidy applies these comments itself.
#pragma once

#include "checkers/ir/suppressions.h"

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace gradlint::cpp {

struct RuleName {
  std::string code; // GL101
  std::string name; // grad-mode-leak: its check is `gradlint-grad-mode-leak`
};

// Scans the comments of a C++ file (strings, character and raw string literals skipped) and
// records the suppressions they ask for, by 0-based line.
void collectNolint(std::string_view source, const std::vector<RuleName>& rules,
                   Suppressions& out);

// The codes of the rules a NOLINT check list selects; an empty list (bare NOLINT) selects all.
// Exposed for tests.
std::vector<std::string> selectedCodes(std::string_view checkList,
                                       const std::vector<RuleName>& rules);

// clang-tidy's glob: `*` matches any run of characters; case-sensitive.
bool globMatches(std::string_view glob, std::string_view text);

} // namespace gradlint::cpp
