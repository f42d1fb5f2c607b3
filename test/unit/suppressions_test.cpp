#include "checkers/ir/suppressions.h"

#include <gtest/gtest.h>

namespace gradlint {
namespace {

TEST(Suppressions, CodesAndBareNoqa) {
  Suppressions s;
  EXPECT_TRUE(s.addComment(3, "# noqa: GL101, GL104"));
  EXPECT_TRUE(s.addComment(5, "# noqa"));
  EXPECT_TRUE(s.addComment(7, "# NOQA:GL1 because reasons"));
  EXPECT_TRUE(s.suppresses(3, "GL101"));
  EXPECT_TRUE(s.suppresses(3, "GL104"));
  EXPECT_FALSE(s.suppresses(3, "GL102"));
  EXPECT_TRUE(s.suppresses(5, "GL999"));
  EXPECT_TRUE(s.suppresses(7, "GL105")); // prefix
  EXPECT_FALSE(s.suppresses(4, "GL101"));
}

TEST(Suppressions, ProseAndMalformedCommentsSuppressNothing) {
  Suppressions s;
  EXPECT_FALSE(s.addComment(1, "# we do not use noqa here"));
  EXPECT_FALSE(s.addComment(2, "# noqa:"));
  EXPECT_FALSE(s.addComment(3, "# noqaGL101"));
  EXPECT_FALSE(s.suppresses(1, "GL101"));
  EXPECT_FALSE(s.suppresses(2, "GL101"));
  EXPECT_FALSE(s.suppresses(3, "GL101"));
}

TEST(Suppressions, FileLevel) {
  Suppressions s;
  EXPECT_TRUE(s.addComment(0, "# gradlint: noqa"));
  EXPECT_TRUE(s.suppresses(42, "GL101"));
}

TEST(Suppressions, ProseMentioningTheFileDirectiveIsNotOne) {
  Suppressions s;
  EXPECT_FALSE(s.addComment(0, "# a file-level `# gradlint: noqa` hides everything"));
  EXPECT_FALSE(s.suppresses(3, "GL101"));
}

TEST(Suppressions, FileLevelWithCodes) {
  Suppressions s;
  EXPECT_TRUE(s.addComment(0, "# gradlint: noqa: GL103"));
  EXPECT_TRUE(s.suppresses(42, "GL103"));
  EXPECT_FALSE(s.suppresses(42, "GL101"));
}

} // namespace
} // namespace gradlint
