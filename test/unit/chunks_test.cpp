// The top-level splitter behind partial parsing: boundaries only where Python has them.
#include "checkers/python/chunks.h"

#include <gtest/gtest.h>

#include <string>

namespace gradlint::python {
namespace {

std::vector<std::string> pieces(const std::string& text) {
  std::vector<std::string> out;
  for (const SourceChunk& chunk : splitTopLevel(text, 0)) {
    out.push_back((chunk.definition ? "D:" : "M:") +
                  text.substr(chunk.start, chunk.end - chunk.start));
  }
  return out;
}

TEST(Chunks, DefinitionsWithDecoratorsAndModuleCode) {
  const std::string text = "import torch\nx = 1\n"
                           "@torch.no_grad()\n@other\ndef f():\n    pass\n"
                           "# comment at column 0 inside nothing\n"
                           "class C:\n    def m(self):\n        pass\n"
                           "y = 2\n";
  EXPECT_EQ(pieces(text),
            (std::vector<std::string>{"M:import torch\nx = 1\n",
                                      "D:@torch.no_grad()\n@other\ndef f():\n    pass\n"
                                      "# comment at column 0 inside nothing\n",
                                      "D:class C:\n    def m(self):\n        pass\n",
                                      "M:y = 2\n"}));
}

TEST(Chunks, NoBoundaryInsideStringsOrBrackets) {
  const std::string text = "def f():\n    '''doc\ndef not_a_def():\n'''\n"
                           "    return g(\n1)\n"
                           "def h():\n    s = 'def x' \\\n\n    pass\n";
  auto result = pieces(text);
  ASSERT_EQ(result.size(), 2u);
  EXPECT_TRUE(result[0].starts_with("D:def f():"));
  EXPECT_TRUE(result[1].starts_with("D:def h():"));
}

TEST(Chunks, UnclosedBracketDoesNotSwallowTheNextDefinition) {
  const std::string text = "def broken(m):\n    out = m(1, 2\n    return out\n"
                           "def leaks():\n    pass\n";
  auto result = pieces(text);
  ASSERT_EQ(result.size(), 2u);
  EXPECT_TRUE(result[1].starts_with("D:def leaks():"));
}

TEST(Chunks, RelevantRangesKeepModuleCodeAndMentioningDefinitions) {
  const std::string text = "import torch\n"
                           "def a():\n    pass\n"
                           "def b():\n    torch.no_grad()\n"
                           "z = 3\n";
  const auto chunks = splitTopLevel(text, 0);
  const auto ranges = relevantRanges(text, chunks, {"no_grad"});
  ASSERT_EQ(ranges.size(), 2u);
  EXPECT_EQ(text.substr(ranges[0].start, ranges[0].end - ranges[0].start), "import torch\n");
  EXPECT_EQ(text.substr(ranges[1].start, ranges[1].end - ranges[1].start),
            "def b():\n    torch.no_grad()\nz = 3\n");
  EXPECT_TRUE(relevantRanges(text, chunks, {"backward"}).empty());
}

} // namespace
} // namespace gradlint::python
