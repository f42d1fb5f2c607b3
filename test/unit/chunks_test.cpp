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
            (std::vector<std::string>{"M:import torch\n", "M:x = 1\n",
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

TEST(Chunks, ModuleLevelTryKeepsItsHandlers) {
  const std::string text = "try:\n    import numpy\nexcept ImportError:\n    numpy = None\n"
                           "else:\n    pass\nx = 1\n";
  auto result = pieces(text);
  ASSERT_EQ(result.size(), 2u);
  EXPECT_EQ(result[1], "M:x = 1\n");
}

TEST(Chunks, ImportAliasesOfMarkedNames) {
  const std::string text = "from torch import no_grad as ng, is_grad_enabled\n"
                           "import torch.autograd.grad_mode as gm\nimport numpy as np\n";
  const auto chunks = splitTopLevel(text, 0);

  EXPECT_EQ(importAliases(text, chunks, {"no_grad", "grad_mode"}),
            (std::vector<std::string>{"ng", "gm"}));
}

TEST(Chunks, ManyNamesMatchWholeIdentifiersOnly) {
  const std::string text = "def a():\n    _enter_x()\ndef b():\n    _enter()\n";
  const ChunkLayout layout = scanChunks(text, 0, false);
  const auto& chunks = layout.chunks;
  std::vector<bool> chosen(chunks.size(), false);
  std::vector<std::string> names{"_enter", "n1", "n2", "n3", "n4", "n5", "n6", "n7", "n8"};
  EXPECT_TRUE(chooseChunks(text, layout, names, chosen, Match::Word));
  EXPECT_EQ(chosen, (std::vector<bool>{false, true}));
  std::vector<bool> bySubstring(chunks.size(), false);
  EXPECT_TRUE(chooseChunks(text, layout, {"_enter"}, bySubstring));
  EXPECT_EQ(bySubstring, (std::vector<bool>{true, true}));
}

TEST(Chunks, UsesSkipDefinitionsAndAttributesOfCalls) {
  // A chunk that only defines a method of that name, or calls it on `super()` or a subscript
  // (no import or definition can bind that root), cannot call the summarised function.
  const std::string text = "class A:\n    def zero_grad(self):\n        super().zero_grad()\n"
                           "def b(models):\n    models[0].zero_grad()\n"
                           "def c(opt):\n    opt.zero_grad()\n"
                           "def d():\n    undef  zero_grad()\n";
  const ChunkLayout layout = scanChunks(text, 0, false);
  const auto& chunks = layout.chunks;
  ASSERT_EQ(chunks.size(), 4u);
  std::vector<bool> byUse(chunks.size(), false);
  EXPECT_TRUE(chooseChunks(text, layout, {"zero_grad"}, byUse, Match::Use));
  EXPECT_EQ(byUse, (std::vector<bool>{false, false, true, true}));
  std::vector<bool> byWord(chunks.size(), false);
  EXPECT_TRUE(chooseChunks(text, layout, {"zero_grad"}, byWord, Match::Word));
  EXPECT_EQ(byWord, (std::vector<bool>{true, true, true, true}));
}

TEST(Chunks, MarkersSkipTheNameOfADefinition) {
  // An autograd Function's `def backward(ctx, g)` runs no backward pass; a call does.
  const std::string text = "class F:\n    def backward(ctx, g):\n        return g\n"
                           "def train(loss):\n    loss.backward()\n"
                           "def step(x):\n    backward_hooks = x\n";
  const ChunkLayout layout = scanChunks(text, 0, false);
  const auto& chunks = layout.chunks;
  ASSERT_EQ(chunks.size(), 3u);
  std::vector<bool> byMarker(chunks.size(), false);
  EXPECT_TRUE(chooseChunks(text, layout, {"backward"}, byMarker, Match::Marker));
  EXPECT_EQ(byMarker, (std::vector<bool>{false, true, true}));
  std::vector<bool> bySubstring(chunks.size(), false);
  EXPECT_TRUE(chooseChunks(text, layout, {"backward"}, bySubstring));
  EXPECT_EQ(bySubstring, (std::vector<bool>{true, true, true}));
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
  const ChunkLayout layout = scanChunks(text, 0, false);
  const auto& chunks = layout.chunks;
  std::vector<bool> chosen(chunks.size(), false);
  EXPECT_TRUE(chooseChunks(text, layout, {"no_grad"}, chosen));
  EXPECT_FALSE(chooseChunks(text, layout, {"no_grad"}, chosen)); // nothing new
  const auto ranges = chosenRanges(chunks, chosen);
  ASSERT_EQ(ranges.size(), 2u);
  EXPECT_EQ(text.substr(ranges[0].start, ranges[0].end - ranges[0].start), "import torch\n");
  EXPECT_EQ(text.substr(ranges[1].start, ranges[1].end - ranges[1].start),
            "def b():\n    torch.no_grad()\n"); // `z = 3` neither imports nor mentions it
  std::vector<bool> none(chunks.size(), false);
  EXPECT_FALSE(chooseChunks(text, layout, {"backward"}, none));
  EXPECT_TRUE(chosenRanges(chunks, none).empty());
}

} // namespace
} // namespace gradlint::python
