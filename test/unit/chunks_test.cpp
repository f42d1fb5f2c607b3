// The top-level splitter behind partial parsing: boundaries only where Python has them.
#include "checkers/python/chunks.h"
#include "checkers/catalog/offload_api.h"

#include <gtest/gtest.h>

#include <algorithm>
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

// The line scan skips plain bytes 16 at a time: strings, escapes, comments and brackets must
// be seen at every offset from a line's start, in a run of plain bytes of every length.
TEST(Chunks, StringsCommentsAndBracketsAtEveryOffset) {
  for (size_t length = 0; length <= 40; ++length) {
    const std::string run(length, 'a');
    SCOPED_TRACE(length);
    const std::string tripleQuoted = "x = " + run + "'''" + run + "\ndef g(): pass\n'''\n";
    const std::string escaped = "s = '" + run + "\\'(' + \"" + run + "\\\"[\"\n";
    // Continuation lines at column 0: only an open bracket keeps them in the statement.
    const std::string bracketed = "y = (" + run + "\n" + run + ")\nw = [" + run + "\n" + run +
                                  "]\nv = {" + run + "\n" + run + "}\n";
    const std::string commented = "z = 1  # " + run + "(\"'\n";
    const std::string last = "def f():\n    return 1\n";
    EXPECT_EQ(pieces(tripleQuoted + escaped + bracketed + commented + last),
              (std::vector<std::string>{"M:" + tripleQuoted, "M:" + escaped,
                                        "M:y = (" + run + "\n" + run + ")\n",
                                        "M:w = [" + run + "\n" + run + "]\n",
                                        "M:v = {" + run + "\n" + run + "}\n", "M:" + commented,
                                        "D:" + last}));
    // A comment's text, up to the line's end, is inert.
    const ChunkLayout layout = scanChunks(commented, 0, false);
    ASSERT_EQ(layout.inert.size(), 1u);
    EXPECT_EQ(commented.substr(layout.inert[0].start, layout.inert[0].end - layout.inert[0].start),
              "# " + run + "(\"'");
  }
}

TEST(Chunks, NamesAroundAPosition) {
  const std::string_view text = "model.enable_model_cpu_offload()";
  EXPECT_EQ(nameAt(text, 6), "enable_model_cpu_offload");
  EXPECT_EQ(nameAt(text, 5), "");
  EXPECT_EQ(nameAround(text, 23, 30), "enable_model_cpu_offload");
  EXPECT_EQ(nameAround(text, 19, 23, false), "cpu_offload");
  EXPECT_EQ(nameAround(text, 5, 5), "model"); // the name before a dot
  // Past the end: an empty view at the end, not out of range.
  const std::string_view past = nameAround(text, 99, 99);
  EXPECT_TRUE(past.empty());
  EXPECT_EQ(past.data(), text.data() + text.size());
}

// Only markers that start a line count, with a space or the line's end after them, at the
// file's start too; `=` runs in code and comments are none.
TEST(Chunks, ConflictMarkersStartALine) {
  const std::string text = "<<<<<<< HEAD\n"
                           "x = 1  # =======\n"
                           "=======\n"
                           "y ======= 2\n"
                           "==========\n"
                           ">>>>>>> branch\n"
                           ">>>>>>>";
  std::vector<uint32_t> found;
  for (const Mention& mention : conflictMarkers(text)) found.push_back(mention.at);
  std::sort(found.begin(), found.end());
  EXPECT_EQ(found, (std::vector<uint32_t>{0, 30, 61, 76}));
  EXPECT_TRUE(conflictMarkers("x = 1\n# ===== section =====\n").empty());
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

TEST(Chunks, NamesBoundAtStartOfAStatement) {
  using Names = std::vector<std::string>;
  EXPECT_EQ(namesBoundAtStart("a = 1\n"), (Names{"a"}));
  EXPECT_EQ(namesBoundAtStart("a, b = f()\n"), (Names{"a", "b"}));
  EXPECT_EQ(namesBoundAtStart("a: int = 1\n"), (Names{"a"}));
  EXPECT_EQ(namesBoundAtStart("total: float\n"), (Names{"total"}));
  EXPECT_EQ(namesBoundAtStart("a = b = 2\n"), (Names{"a", "b"}));
  EXPECT_EQ(namesBoundAtStart("a == b\n"), Names{});
  EXPECT_EQ(namesBoundAtStart("a.b = 1\n"), Names{}); // an attribute: binds no name
  EXPECT_EQ(namesBoundAtStart("f(x=1)\n"), Names{});
  EXPECT_EQ(namesBoundAtStart("for m in ms:\n    m.train()\n"), Names{});
  EXPECT_EQ(namesBoundAtStart("1 = x\n"), Names{});
}

// Module code is one flow: from a chosen statement forward over what it binds, then backward
// over what the statements reached name.
TEST(Chunks, ModuleFlowChoosesUsesAndBindingsOfChosenStatements) {
  const std::string text = "import torch\n"                               // 0 (import)
                           "offload_map = {'a': 'disk'}\n"                 // 1 binding read
                           "heavy = load(device_map=offload_map)\n"        // 2 chosen
                           "alias = heavy\n"                               // 3 forward
                           "alias.train()\n"                               // 4 forward
                           "other = 3\n"                                   // 5 unrelated
                           "print(other, offload_map)\n"                   // 6 another use
                           "# heavy in a comment\n"                        // (inert)
                           "x = 'heavy'\n"                                 // 7 a string
                           "def f():\n    heavy.train()\n";               // 8 a function
  const ChunkLayout layout = scanChunks(text, 0, true);
  ASSERT_EQ(layout.chunks.size(), 9u);
  std::vector<bool> chosen(layout.chunks.size(), false);
  std::vector<bool> asBinding;
  chosen[2] = true;
  EXPECT_TRUE(chooseModuleFlow(text, layout, chosen, asBinding));
  EXPECT_EQ(chosen,
            (std::vector<bool>{false, true, true, true, true, false, false, false, false}));
  EXPECT_EQ(asBinding,
            (std::vector<bool>{false, true, false, false, false, false, false, false, false}));
  // Again: the binding reached backward starts no forward walk, so nothing is new.
  EXPECT_FALSE(chooseModuleFlow(text, layout, chosen, asBinding));
  // A use of `other` chosen later (a rescan) reaches its binding.
  chosen[6] = true;
  EXPECT_TRUE(chooseModuleFlow(text, layout, chosen, asBinding));
  EXPECT_TRUE(chosen[5]);
  // Only a function chosen, and what it reads is no literal (`heavy = load(...)`): nothing.
  std::vector<bool> onlyFunction(layout.chunks.size(), false);
  std::vector<bool> none;
  onlyFunction[8] = true;
  EXPECT_FALSE(chooseModuleFlow(text, layout, onlyFunction, none));
}

TEST(Chunks, ModuleFlowFollowsTheObjectAStatementActsOn) {
  const std::string text = "pipe = load()\n"                      // 0 binding (backward)
                           "pipe.enable_model_cpu_offload()\n"    // 1 chosen
                           "for b in data:\n    pipe(b).backward()\n" // 2 forward
                           "torch.manual_seed(0)\n"               // 3 an import's name
                           "print(torch)\n";                      // 4 not reached
  const ChunkLayout layout = scanChunks(text, 0, true);
  ASSERT_EQ(layout.chunks.size(), 5u);
  std::vector<bool> chosen(layout.chunks.size(), false);
  std::vector<bool> asBinding;
  chosen[1] = true;
  chosen[3] = true; // `torch` is bound by no module statement: its users are not followed
  EXPECT_TRUE(chooseModuleFlow(text, layout, chosen, asBinding));
  EXPECT_EQ(chosen, (std::vector<bool>{true, true, true, true, false}));
}

// A chosen function reads module constants: their literal bindings are chosen (one step, as
// bindings), not other bindings of the names it mentions nor their other uses.
TEST(Chunks, ModuleFlowChoosesConstantsAChosenFunctionReads) {
  const std::string text = "import logging\n"                    // 0 (import)
                           "MODEL_ID = 'facebook/opt-350m'\n"    // 1 a constant it reads
                           "MAP = {'': 0}\n"                     // 2 another
                           "log = logging.getLogger(__name__)\n" // 3 not a literal
                           "print(MODEL_ID)\n"                   // 4 another use
                           "UNUSED = 'x'\n"                      // 5 not read
                           "def load():\n"                       // 6 the chosen function
                           "    log.info(MAP)\n"
                           "    return f(MODEL_ID, device_map=MAP)\n";
  const ChunkLayout layout = scanChunks(text, 0, true);
  ASSERT_EQ(layout.chunks.size(), 7u);
  std::vector<bool> chosen(layout.chunks.size(), false);
  std::vector<bool> asBinding;
  chosen[6] = true;
  EXPECT_TRUE(chooseModuleFlow(text, layout, chosen, asBinding));
  EXPECT_EQ(chosen, (std::vector<bool>{false, true, true, false, false, false, true}));
  EXPECT_EQ(asBinding, (std::vector<bool>{false, true, true, false, false, false, false}));
  EXPECT_FALSE(chooseModuleFlow(text, layout, chosen, asBinding));
}

// Class splitting: the header, then one chunk per member (decorators with their def), nested
// classes split in turn.
TEST(Chunks, ClassesSplitIntoHeaderAndMembers) {
  const std::string text = "@dataclass\nclass A(Base):\n    '''doc'''\n    x = 1\n"
                           "    @property\n    def p(self):\n        return 1\n\n"
                           "    class B:\n        def q(self):\n            pass\n"
                           "        def r(self):\n            pass\n"
                           "    def s(self):\n        pass\n"
                           "y = 2\n";
  const ChunkLayout layout = scanChunks(text, 0, true);
  const auto& chunks = layout.chunks;
  std::vector<std::string> pieces;
  for (const SourceChunk& chunk : chunks) {
    pieces.push_back(std::to_string(chunk.header) + ":" +
                     text.substr(chunk.start, chunk.end - chunk.start));
  }
  EXPECT_EQ(pieces, (std::vector<std::string>{
                        "-1:@dataclass\nclass A(Base):\n",
                        "0:    '''doc'''\n",
                        "0:    x = 1\n",
                        "0:    @property\n    def p(self):\n        return 1\n\n",
                        "0:    class B:\n",
                        "4:        def q(self):\n            pass\n",
                        "4:        def r(self):\n            pass\n",
                        "0:    def s(self):\n        pass\n",
                        "-1:y = 2\n",
                    }));
  EXPECT_EQ(chunks[0].membersEnd, 8u);
  EXPECT_EQ(chunks[4].membersEnd, 7u);
  // Without splitting, the class is one chunk.
  EXPECT_EQ(splitTopLevel(text, 0).size(), 2u);
}

TEST(Chunks, MentionInAMemberChoosesItAndEveryHeaderAroundIt) {
  const std::string text = "class A:\n    def a(self):\n        pass\n"
                           "    class B:\n        def b(self):\n            torch.no_grad()\n"
                           "        def c(self):\n            pass\n";
  const ChunkLayout layout = scanChunks(text, 0, true);
  ASSERT_EQ(layout.chunks.size(), 5u);
  std::vector<bool> chosen(layout.chunks.size(), false);
  EXPECT_TRUE(chooseChunks(text, layout, {"no_grad"}, chosen, Match::Marker));
  EXPECT_EQ(chosen, (std::vector<bool>{true, false, true, true, false}));
  const auto ranges = chosenRanges(layout.chunks, chosen);
  ASSERT_EQ(ranges.size(), 2u);
  EXPECT_EQ(text.substr(ranges[0].start, ranges[0].end - ranges[0].start), "class A:\n");
  EXPECT_TRUE(text.substr(ranges[1].start).starts_with("    class B:\n        def b(self):"));
  // A rule that follows `self.attr` across methods takes the whole class the mention is in.
  std::vector<bool> whole(layout.chunks.size(), false);
  const auto at = static_cast<uint32_t>(text.find("no_grad"));
  chooseMentioned(layout, {{at, ClassScope::WholeClass}}, whole);
  EXPECT_EQ(whole, (std::vector<bool>{true, false, true, true, true}));
  // Deferred: the member and the headers around it now, its class (B, chunk 2) left to the
  // caller, once however many mentions; chooseClass then takes the rest of it.
  std::vector<bool> deferred(layout.chunks.size(), false);
  std::vector<uint32_t> classes;
  const std::vector<Mention> twice = {{at, ClassScope::WholeClass},
                                      {at + 1, ClassScope::WholeClass}};
  EXPECT_TRUE(chooseMentioned(layout, twice, deferred, &classes));
  EXPECT_EQ(deferred, (std::vector<bool>{true, false, true, true, false}));
  EXPECT_EQ(classes, (std::vector<uint32_t>{2}));
  EXPECT_TRUE(chooseClass(layout, classes[0], deferred));
  EXPECT_EQ(deferred, whole);
  EXPECT_FALSE(chooseClass(layout, classes[0], deferred));
  // A mention in a header (a base class, a decorator) takes the whole class.
  const std::string decorated = "@torch.no_grad()\nclass C:\n    def a(self):\n        pass\n"
                                "    def b(self):\n        pass\n";
  const ChunkLayout decoratedLayout = scanChunks(decorated, 0, true);
  std::vector<bool> all(decoratedLayout.chunks.size(), false);
  EXPECT_TRUE(chooseChunks(decorated, decoratedLayout, {"no_grad"}, all, Match::Marker));
  EXPECT_EQ(all, (std::vector<bool>{true, true, true}));
}

TEST(Chunks, MentionsInCommentsAndStringsDoNotCount) {
  const std::string text = "def a():\n    '''Runs under torch.no_grad().'''\n"
                           "def b():\n    x = 1  # not torch.no_grad()\n"
                           "def c():\n    s = \"no_grad\"\n"
                           "def d():\n    s = f\"{torch.no_grad()}\"\n"
                           "def e():\n    torch.no_grad()\n";
  const ChunkLayout layout = scanChunks(text, 0, false);
  std::vector<bool> chosen(layout.chunks.size(), false);
  EXPECT_TRUE(chooseChunks(text, layout, {"no_grad"}, chosen, Match::Marker));
  // An f-string's braces hold code: `d` counts.
  EXPECT_EQ(chosen, (std::vector<bool>{false, false, false, true, true}));
}

TEST(Chunks, RestoringRegionsAreDecoratorsAndWithStatementsWithEmptyParentheses) {
  auto region = [](const std::string& text) {
    const size_t name = std::min(text.find("no_grad"), text.find("inference_mode"));
    return restoringRegionAt(text, name);
  };
  EXPECT_TRUE(region("@torch.no_grad()\ndef f():\n"));
  EXPECT_TRUE(region("    @torch.inference_mode()  # no graph\n    def f(self):\n"));
  EXPECT_TRUE(region("@no_grad()\r\ndef f():\n"));
  EXPECT_TRUE(region("    with torch.autograd.no_grad():\n"));
  EXPECT_TRUE(region("    with torch.no_grad(), open(p) as f:\n"));
  EXPECT_TRUE(region("    async with torch.no_grad():\n"));
  // What GL105 reports, and spellings the scan does not vouch for.
  EXPECT_FALSE(region("@torch.no_grad\ndef f():\n"));
  EXPECT_FALSE(region("    with torch.no_grad:\n"));
  EXPECT_FALSE(region("    torch.no_grad()\n"));
  EXPECT_FALSE(region("    torch.no_grad().__enter__()\n"));
  EXPECT_FALSE(region("    ctx = torch.no_grad()\n"));
  EXPECT_FALSE(region("    with torch.inference_mode(False):\n"));
  EXPECT_FALSE(region("    with torch.no_grad() as ctx:\n"));
  EXPECT_FALSE(region("    with a, torch.no_grad():\n"));
  EXPECT_FALSE(region("    with f().no_grad():\n"));
  EXPECT_FALSE(region("    x = 1; with torch.no_grad():\n"));
  EXPECT_FALSE(region("    without torch.no_grad():\n"));
  EXPECT_FALSE(region("@torch.my_no_grad()\n"));
}

TEST(Chunks, RestoringRegionsAloneDoNotChooseAFunction) {
  const std::string text = "@torch.no_grad()\ndef quiet(x):\n"
                           "    '''Never calls backward() here.'''\n"
                           "    return scheduler.step(x)  # a step alone is no training loop\n"
                           "def block(x):\n    with torch.inference_mode():\n        return f(x)\n"
                           "@torch.no_grad()\ndef trains(x):\n    x.backward()\n"
                           "@torch.no_grad()\ndef resets(p):\n    p.grad = None\n"
                           "@torch.no_grad()\ndef scaled(p):\n    return p.gradient_scale\n"
                           "@torch.no_grad()\nclass Body:\n    x = 1\n"
                           "with torch.no_grad():\n    y = 2\n"
                           "def bare():\n    torch.no_grad()\n";
  const ChunkLayout layout = scanChunks(text, 0, true);
  ASSERT_EQ(layout.chunks.size(), 9u);
  std::vector<Mention> mentions = findMentions(text, {"no_grad", "inference_mode"}, Match::Marker);
  ASSERT_EQ(mentions.size(), 8u);
  EXPECT_EQ(dropRestoringRegions(text, layout, mentions), 3u);
  std::vector<bool> chosen(layout.chunks.size(), false);
  chooseMentioned(layout, mentions, chosen);
  // `quiet`, `block` and `scaled` are left out; a backward, a gradient reset, a class body
  // (it runs at import), module code and what GL105 reports are not.
  EXPECT_EQ(chosen,
            (std::vector<bool>{false, false, true, true, false, true, true, true, true}));
}

TEST(Chunks, OnlyACalledBackwardOrAnOffloadAPISpoilsARestoringRegion) {
  const std::string text = "@torch.no_grad()\ndef hook(self):\n"
                           "    self._post_backward_hook(self.cpu_offload.offload_params)\n"
                           "    register_full_backward_hook(torch_dispatch)\n"
                           "@torch.no_grad()\ndef trains(loss):\n    loss.backward ()\n"
                           "@torch.no_grad()\ndef lightning(self, loss):\n"
                           "    self.manual_backward(loss)\n"
                           "@torch.no_grad()\ndef offloads(pipe):\n"
                           "    pipe.enable_model_cpu_offload()\n"
                           "@torch.no_grad()\ndef loads(name):\n"
                           "    return load(name, device_map='auto')\n"
                           "@torch.no_grad()\ndef dispatches(m, maps):\n"
                           "    return dispatch_model(m, maps)\n";
  const ChunkLayout layout = scanChunks(text, 0, true);
  ASSERT_EQ(layout.chunks.size(), 6u);
  std::vector<Mention> mentions = findMentions(text, {"no_grad"}, Match::Marker);
  ASSERT_EQ(mentions.size(), 6u);
  // `hook` names a backward hook, offload settings and torch's dispatch: none is a call the
  // lowering makes an event of.
  EXPECT_EQ(dropRestoringRegions(text, layout, mentions), 1u);
  std::vector<bool> chosen(layout.chunks.size(), false);
  chooseMentioned(layout, mentions, chosen);
  EXPECT_EQ(chosen, (std::vector<bool>{false, true, true, true, true, true}));
}

TEST(Chunks, ABackwardAloneInAFunctionIsNoMention) {
  const std::string text = "import torch\n"
                           "from torch import no_grad as frozen\n"
                           "off = torch.inference_mode\n"
                           "def check(model, x):\n    model(x).sum().backward()\n"
                           "def train(model, opt, x):\n    model(x).sum().backward()\n"
                           "    opt.step()\n"
                           "def aliased(model, x):\n    with frozen():\n        y = model(x)\n"
                           "    y.backward()\n"
                           "def bound(model, x):\n    with off():\n        y = model(x)\n"
                           "    y.backward()\n"
                           "class Trainer:\n    def fit(self, x):\n"
                           "        self.model(x).backward()\n"
                           "model(x).backward()\n";
  const ChunkLayout layout = scanChunks(text, 0, true);
  ASSERT_EQ(layout.chunks.size(), 10u);
  std::vector<Mention> mentions = findMentions(text, {"backward"}, Match::WordMarker);
  ASSERT_EQ(mentions.size(), 6u);
  // `check` and the method `fit` name no step and nothing that disables grad; `train` names a
  // step, `aliased` and `bound` an API through an import alias and a module binding, and module
  // code keeps its backward (a script offloads in one statement and trains in the next).
  EXPECT_EQ(dropLoneBackwards(text, layout, mentions), 2u);
  std::vector<bool> chosen(layout.chunks.size(), false);
  chooseMentioned(layout, mentions, chosen);
  EXPECT_EQ(chosen, (std::vector<bool>{false, false, false, false, true, true, true, false, false,
                                       true}));
}

// The lowering makes a backward only of a call: a table of overrides (`Tensor.backward: lambda
// ...`) or a reference is no reason to parse, wherever it is.
TEST(Chunks, ABackwardNotCalledIsNoMention) {
  const std::string text = "OVERRIDES = {Tensor.backward: lambda self: -1}\n"
                           "def table(opt):\n    opt.step()\n    return [Tensor.backward]\n"
                           "def spaced(loss, opt):\n    loss.backward (\n    )\n    opt.step()\n";
  const ChunkLayout layout = scanChunks(text, 0, true);
  ASSERT_EQ(layout.chunks.size(), 3u);
  std::vector<Mention> mentions = findMentions(text, {"backward"}, Match::WordMarker);
  ASSERT_EQ(mentions.size(), 3u);
  EXPECT_EQ(dropLoneBackwards(text, layout, mentions), 2u);
  ASSERT_EQ(mentions.size(), 1u);
  EXPECT_EQ(text.substr(mentions[0].at, 10), "backward (");
}

TEST(Chunks, AStepThatIsNotACallKeepsNoBackward) {
  const std::string text = "def fit(loss, training_step, step_size=1):\n    loss.backward()\n"
                           "def train(loss, opt):\n    loss.backward()\n    opt .step ()\n"
                           "def wrapped(loss, opt):\n    loss.backward()\n    opt.\\\n"
                           "        step()\n";
  const ChunkLayout layout = scanChunks(text, 0, true);
  ASSERT_EQ(layout.chunks.size(), 3u);
  std::vector<Mention> mentions = findMentions(text, {"backward"}, Match::WordMarker);
  ASSERT_EQ(mentions.size(), 3u);
  EXPECT_EQ(dropLoneBackwards(text, layout, mentions), 1u);
  ASSERT_EQ(mentions.size(), 2u);
  EXPECT_GT(mentions[0].at, layout.chunks[1].start);
}

TEST(Chunks, AMarkerInsideAForeignNameIsNoMention) {
  const std::string text = "cfg = CPUOffload(offload_params=True)\n"
                           "pipe.enable_model_cpu_offload()\n"
                           "self.enable_model_cpu_offload = True\n"
                           "opts = {'device_maps': maps}\n"
                           "m = load(name, device_map='auto')\n"
                           "if 'cpu' in m.hf_device_map.values(): pass\n";
  auto known = [](std::string_view name, bool called) {
    return name == "device_map" || name == "hf_device_map" ||
           (called && name == "enable_model_cpu_offload");
  };
  std::vector<Mention> mentions =
      findMentions(text, {"offload", "Offload", "device_map"}, Match::Substring);
  ASSERT_EQ(mentions.size(), 7u);
  EXPECT_EQ(dropForeignNames(text, "offload", known, mentions), 2u);
  EXPECT_EQ(dropForeignNames(text, "device_map", known, mentions), 1u);
  std::vector<std::string> found;
  for (const Mention& mention : mentions) {
    size_t start = mention.at;
    size_t end = mention.at;
    while (start > 0 && isWordChar(text[start - 1])) --start;
    while (end < text.size() && isWordChar(text[end])) ++end;
    found.push_back(text.substr(start, end - start));
  }
  // `CPUOffload` is another marker's (`Offload`): only the marker named is filtered. A method's
  // name that is not called (an attribute of the same name) is no call of it.
  EXPECT_EQ(found, (std::vector<std::string>{"CPUOffload", "enable_model_cpu_offload",
                                             "device_map", "hf_device_map"}));
}

TEST(Chunks, TheOffloadVocabularyIsTheCatalogs) {
  for (std::string_view name : {"enable_model_cpu_offload", "cpu_offload", "disk_offload",
                                "apply_group_offloading", "dispatch_model", "reset_device_map",
                                "load_checkpoint_and_dispatch", "infer_auto_device_map"}) {
    EXPECT_TRUE(catalog::isOffloadVocabulary(name, true)) << name;
    EXPECT_FALSE(catalog::isOffloadVocabulary(name, false)) << name;
  }
  for (std::string_view name : {"device_map", "hf_device_map", "offload_folder",
                                "offload_state_dict", "llm_int8_enable_fp32_cpu_offload"}) {
    EXPECT_TRUE(catalog::isOffloadVocabulary(name, false)) << name;
  }
  for (std::string_view name : {"offload_params", "offload_to_cpu", "device_maps",
                                "__torch_dispatch__"}) {
    EXPECT_FALSE(catalog::isOffloadVocabulary(name, true)) << name;
  }
}

TEST(Chunks, OptimizerMentionsLeaveOutOptimising) {
  const std::string text = "from torch import optim\n"
                           "self.optimizer = optim.SGD(params)\n"
                           "optimisers = []\n"
                           "torch.choose_qparams_optimized(x)\n"
                           "torch.jit.optimize_for_inference(m)\n"
                           "optimal = optimum = 1\n";
  std::vector<std::string> found;
  for (const Mention& mention : optimizerMentions(text)) {
    size_t end = mention.at;
    while (end < text.size() && isWordChar(text[end])) ++end;
    found.push_back(text.substr(mention.at, end - mention.at));
  }
  EXPECT_EQ(found, (std::vector<std::string>{"optim", "optimizer", "optim", "optimisers"}));
}

TEST(Chunks, ANameBoundByModuleOrClassCodeIsNoMention) {
  const std::string text = "device_map_default = 'auto'\n"
                           "class Pipeline:\n"
                           "    model_cpu_offload_seq = 'unet->vae'\n"
                           "    hooks = cpu_offload(unet)\n"
                           "    offload_count += 1\n"
                           "    def run(self):\n        offload_seq = 1\n";
  const ChunkLayout layout = scanChunks(text, 0, true);
  ASSERT_EQ(layout.chunks.size(), 6u);
  std::vector<Mention> mentions = findMentions(text, {"offload", "device_map"}, Match::Marker);
  ASSERT_EQ(mentions.size(), 5u);
  // The two names bound at a statement's start; not a call in a value, an augmented
  // assignment, or a function's local.
  EXPECT_EQ(dropBoundNames(text, layout, mentions), 2u);
  std::vector<bool> chosen(layout.chunks.size(), false);
  chooseMentioned(layout, mentions, chosen);
  EXPECT_EQ(chosen, (std::vector<bool>{false, true, false, true, true, true}));
}

TEST(Chunks, ImportsNeedTheKeyword) {
  const std::string text = "x = 1  # imported elsewhere\nfrom a import b\ny = 'import z'\n"
                           "try:\n    import numpy\nexcept ImportError:\n    pass\n"
                           "important = 3\n";
  const auto chunks = splitTopLevel(text, 0);
  std::vector<bool> imports;
  for (const SourceChunk& chunk : chunks) imports.push_back(chunk.imports);
  EXPECT_EQ(imports, (std::vector<bool>{false, true, false, true, false}));
}

// NeedleSearch looks at every k-th position only: it must still find every occurrence of every
// needle, at every alignment, as a plain search does. The second set has one short name among
// long ones (a rescan's `eval`), which it searches for on its own.
TEST(Chunks, NeedleSearchFindsWhatAPlainSearchFinds) {
  const std::vector<std::vector<std::string>> sets{
      {"no_grad", "backward", ".eval(", "grad_enabled", "ab", "optimizer_step_with_a_long_name"},
      {"eval", "_test_ddp_logging_data", "quantize_dynamic", "ab",
       "test_post_localSGD_optimizer_parity"}};
  for (const std::vector<std::string>& needles : sets) {
    std::string text;
    for (size_t i = 0; i < 200; ++i) {
      text += std::string(i % 13, ' ') + needles[i % needles.size()];
      text += i % 3 == 0 ? "\n" : "x";
    }
    std::vector<uint32_t> expected;
    for (const std::string& needle : needles) {
      for (size_t at = text.find(needle); at != std::string::npos;
           at = text.find(needle, at + 1)) {
        expected.push_back(static_cast<uint32_t>(at));
      }
    }
    std::sort(expected.begin(), expected.end());
    std::vector<uint32_t> found;
    for (const Mention& mention : findMentions(text, needles, Match::Substring)) {
      found.push_back(mention.at);
    }
    std::sort(found.begin(), found.end());
    found.erase(std::unique(found.begin(), found.end()), found.end());
    EXPECT_EQ(found, expected) << needles.front();
  }
}

TEST(Chunks, WordMarkersMatchWholeIdentifiersOnly) {
  const std::string text = "loss.backward()\n_backward_hooks = 1\nmanual_backward(x)\n"
                           "def backward(ctx, g):\n    pass\n";
  std::vector<uint32_t> found;
  for (const Mention& mention : findMentions(text, {"backward"}, Match::WordMarker)) {
    found.push_back(mention.at);
  }
  EXPECT_EQ(found, (std::vector<uint32_t>{5}));
}

// Two rules may look for the same text with different class scopes (GL202's `device_map` takes
// the whole class): both mentions come back, so the wider scope is not lost.
TEST(Chunks, SameTextWithAnotherScopeIsReportedToo) {
  const NeedleSearch search({{"device_map", Match::Marker, ClassScope::Member},
                             {"device_map", Match::Marker, ClassScope::WholeClass}});
  const std::vector<Mention> found = search.find("m = load(device_map='auto')\n");
  ASSERT_EQ(found.size(), 2u);
  EXPECT_EQ(found[0].at, found[1].at);
  EXPECT_NE(found[0].scope, found[1].scope);
}

// The callers of a newly chosen function, then theirs, are chosen; a mention in a comment or
// a string is none, and a dunder's mentions are not followed.
TEST(Chunks, LocalCallersOfNewlyChosenFunctions) {
  const std::string text = "def helper():\n    pass\n"          // 0: newly chosen
                           "def caller():\n    helper()\n"      // 1
                           "def outer():\n    return caller()\n" // 2: a caller's caller
                           "def other():\n    # helper()\n    return 'caller()'\n" // 3
                           "def __init__():\n    pass\n"        // 4: newly chosen, a dunder
                           "def uses_init():\n    __init__()\n"; // 5
  const ChunkLayout layout = scanChunks(text, 0, false);
  ASSERT_EQ(layout.chunks.size(), 6u);
  std::vector<bool> chosen{true, false, false, false, true, false};
  const std::vector<bool> before(6, false);
  EXPECT_TRUE(chooseLocalCallers(text, layout, chosen, before));
  EXPECT_EQ(chosen, (std::vector<bool>{true, true, true, false, true, false}));
  // Chosen before: nothing to follow.
  std::vector<bool> again{true, false, false, false, false, false};
  EXPECT_FALSE(chooseLocalCallers(text, layout, again, again));
  EXPECT_EQ(again, (std::vector<bool>{true, false, false, false, false, false}));
}

} // namespace
} // namespace gradlint::python
