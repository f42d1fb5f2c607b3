// clang-tidy's NOLINT grammar as `gradlint check` reads it from C++ comments.
#include "checkers/cpp/nolint.h"

#include <gtest/gtest.h>

namespace gradlint::cpp {
namespace {

const std::vector<RuleName> kRules = {{"GL101", "grad-mode-leak"},
                                      {"GL104", "grad-mode-restore-not-exception-safe"},
                                      {"GL105", "grad-context-not-entered"}};

Suppressions collect(std::string_view source) {
  Suppressions out;
  collectNolint(source, kRules, out);
  return out;
}

TEST(Nolint, BareSuppressesEveryRuleOnItsLine) {
  const Suppressions s = collect("a();\nb(); // NOLINT\nc();\n");
  EXPECT_FALSE(s.suppresses(0, "GL101"));
  EXPECT_TRUE(s.suppresses(1, "GL101"));
  EXPECT_TRUE(s.suppresses(1, "GL105"));
  EXPECT_FALSE(s.suppresses(2, "GL101"));
}

TEST(Nolint, CheckNamesGlobsAndCodes) {
  const Suppressions s = collect("x; // NOLINT(gradlint-grad-mode-leak)\n"
                                 "y; // NOLINT(GL104, bugprone-*)\n"
                                 "z; // NOLINT(gradlint-*,-gradlint-grad-context-not-entered)\n"
                                 "w; // NOLINT(bugprone-use-after-move)\n");
  EXPECT_TRUE(s.suppresses(0, "GL101"));
  EXPECT_FALSE(s.suppresses(0, "GL104"));
  EXPECT_TRUE(s.suppresses(1, "GL104"));
  EXPECT_FALSE(s.suppresses(1, "GL101"));
  EXPECT_TRUE(s.suppresses(2, "GL101"));
  EXPECT_FALSE(s.suppresses(2, "GL105"));
  EXPECT_FALSE(s.suppresses(3, "GL101")); // names none of ours
}

TEST(Nolint, NextLineAndBlocks) {
  const Suppressions s = collect("// NOLINTNEXTLINE(GL101)\n"
                                 "a;\n"
                                 "b;\n"
                                 "/* NOLINTBEGIN */\n"
                                 "c;\n"
                                 "// NOLINTEND\n"
                                 "d;\n"
                                 "// NOLINTBEGIN(GL105)\n"
                                 "e;\n");
  EXPECT_TRUE(s.suppresses(1, "GL101"));
  EXPECT_FALSE(s.suppresses(1, "GL105"));
  EXPECT_FALSE(s.suppresses(2, "GL101"));
  EXPECT_TRUE(s.suppresses(4, "GL104"));
  EXPECT_FALSE(s.suppresses(6, "GL101"));
  EXPECT_FALSE(s.suppresses(8, "GL105")); // never closed: nothing, as in clang-tidy
}

TEST(Nolint, NotInStringsOrOtherWords) {
  const Suppressions s = collect("auto a = \"// NOLINT\";\n"
                                 "auto b = R\"x(// NOLINT)x\";\n"
                                 "int c = 1'000; // NOLINTX\n"
                                 "char d = '\"'; // NOLINT\n");
  EXPECT_FALSE(s.suppresses(0, "GL101"));
  EXPECT_FALSE(s.suppresses(1, "GL101"));
  EXPECT_FALSE(s.suppresses(2, "GL101"));
  EXPECT_TRUE(s.suppresses(3, "GL101"));
}

TEST(Nolint, Globs) {
  EXPECT_TRUE(globMatches("gradlint-*", "gradlint-grad-mode-leak"));
  EXPECT_TRUE(globMatches("*leak", "gradlint-grad-mode-leak"));
  EXPECT_FALSE(globMatches("gradlint", "gradlint-grad-mode-leak"));
  EXPECT_TRUE(globMatches("*", ""));
  EXPECT_EQ(selectedCodes("GL1*", kRules), (std::vector<std::string>{"GL101", "GL104", "GL105"}));
}

} // namespace
} // namespace gradlint::cpp
