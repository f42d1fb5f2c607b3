#include "checkers/ir/ascii.h"

#include <gtest/gtest.h>

namespace gradlint {
namespace {

TEST(Ascii, MapsOnlyAsciiLetters) {
  EXPECT_EQ(asciiLower("Content-Length: 12"), "content-length: 12");
  EXPECT_EQ(asciiUpper("gl101,gl2"), "GL101,GL2");
  // UTF-8 bytes (and every byte outside A-Z/a-z) pass through, whatever the locale says.
  EXPECT_EQ(asciiLower("\xC3\x84Rger \xC3\xA4"), "\xC3\x84rger \xC3\xA4");
  EXPECT_EQ(asciiUpper("\xC3\xA4[z]@`{"), "\xC3\xA4[Z]@`{");
  EXPECT_EQ(asciiLower(""), "");
}

TEST(Ascii, EqualsIgnoringCase) {
  EXPECT_TRUE(asciiIEquals("FILE://", "file://"));
  EXPECT_TRUE(asciiIEquals("", ""));
  EXPECT_FALSE(asciiIEquals("file:/", "file://"));
  EXPECT_FALSE(asciiIEquals("[", "{")); // '[' + 32 is '{': only letters fold
  EXPECT_FALSE(asciiIEquals("\xC3\x84", "\xC3\xA4"));
}

} // namespace
} // namespace gradlint
