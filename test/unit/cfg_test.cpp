// The CFG builder: control flow of each Python construct, checked through the lowered graph.
#include "checkers/ir/cfg_dump.h"
#include "checkers/ir/grad_state.h"
#include "test_support.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace gradlint {
namespace {

using ir::EventKind;
using testing::countEvents;
using testing::findUnit;
using testing::lowerSnippet;

// Leaks of the unit named `name` with no interprocedural summaries: each toggle's normal leak,
// or its exceptional one when it has no normal leak (what the rules report).
std::vector<ir::Leak> leaksOf(const python::PythonFileResult& result, const std::string& name) {
  const ir::FunctionIR* fn = findUnit(result, name);
  EXPECT_NE(fn, nullptr) << name;
  if (fn == nullptr) return {};
  std::vector<ir::Leak> all = ir::analyzeGradState(*fn, nullptr).leaks;
  std::vector<ir::Leak> leaks;
  for (const ir::Leak& leak : all) {
    const bool hasNormal = std::any_of(all.begin(), all.end(), [&](const ir::Leak& other) {
      return other.toggle == leak.toggle && !other.exceptional;
    });
    if (!leak.exceptional || !hasNormal) leaks.push_back(leak);
  }
  return leaks;
}

TEST(CfgBuilder, UnitsForFunctionsLambdasClassesAndModule) {
  auto result = lowerSnippet("import torch\n"
                             "class C:\n"
                             "    def m(self):\n"
                             "        f = lambda: torch.no_grad()\n"
                             "def g():\n"
                             "    pass\n");
  ASSERT_EQ(result.module.units.size(), 5u);
  EXPECT_EQ(result.module.units[0].kind, ir::UnitKind::Module);
  EXPECT_EQ(findUnit(result, "C")->kind, ir::UnitKind::ClassBody);
  EXPECT_EQ(findUnit(result, "m")->qualifiedName, "snippet.C.m");
  EXPECT_EQ(findUnit(result, "<lambda>")->kind, ir::UnitKind::Lambda);
  EXPECT_EQ(findUnit(result, "g")->qualifiedName, "snippet.g");
}

TEST(CfgBuilder, FinallyRunsOnReturnInsideTry) {
  auto result = lowerSnippet("import torch\n"
                             "def f(x):\n"
                             "    prev = torch.is_grad_enabled()\n"
                             "    torch.set_grad_enabled(False)\n"
                             "    try:\n"
                             "        return x()\n"
                             "    finally:\n"
                             "        torch.set_grad_enabled(prev)\n");
  const ir::FunctionIR* fn = findUnit(result, "f");
  ASSERT_NE(fn, nullptr);
  // One copy of the finally body for the return, one for exceptions (no normal completion).
  EXPECT_EQ(countEvents(*fn, EventKind::RestoreGrad), 2u) << ir::dumpCfg(*fn);
  EXPECT_TRUE(leaksOf(result, "f").empty()) << ir::dumpCfg(*fn);
}

TEST(CfgBuilder, ExceptionBetweenToggleAndRestoreIsAnExceptionalLeak) {
  auto result = lowerSnippet("import torch\n"
                             "def f(x):\n"
                             "    torch.set_grad_enabled(False)\n"
                             "    x()\n"
                             "    torch.set_grad_enabled(True)\n");
  auto leaks = leaksOf(result, "f");
  ASSERT_EQ(leaks.size(), 1u);
  EXPECT_TRUE(leaks[0].exceptional);
}

TEST(CfgBuilder, ExceptHandlerThatRestoresAndReraises) {
  auto result = lowerSnippet("import torch\n"
                             "def f(x):\n"
                             "    torch.set_grad_enabled(False)\n"
                             "    try:\n"
                             "        x()\n"
                             "    except BaseException:\n"
                             "        torch.set_grad_enabled(True)\n"
                             "        raise\n"
                             "    torch.set_grad_enabled(True)\n");
  EXPECT_TRUE(leaksOf(result, "f").empty());
}

TEST(CfgBuilder, NarrowHandlerLetsOtherExceptionsThrough) {
  auto result = lowerSnippet("import torch\n"
                             "def f(x):\n"
                             "    torch.set_grad_enabled(False)\n"
                             "    try:\n"
                             "        x()\n"
                             "    except ValueError:\n"
                             "        torch.set_grad_enabled(True)\n"
                             "        raise\n"
                             "    torch.set_grad_enabled(True)\n");
  auto leaks = leaksOf(result, "f");
  ASSERT_EQ(leaks.size(), 1u);
  EXPECT_TRUE(leaks[0].exceptional);
}

TEST(CfgBuilder, BranchThatSkipsTheRestoreLeaks) {
  auto result = lowerSnippet("import torch\n"
                             "def f(flag):\n"
                             "    torch.set_grad_enabled(False)\n"
                             "    if flag:\n"
                             "        return 1\n"
                             "    elif flag is None:\n"
                             "        pass\n"
                             "    else:\n"
                             "        torch.set_grad_enabled(True)\n"
                             "        return 2\n"
                             "    torch.set_grad_enabled(True)\n");
  auto leaks = leaksOf(result, "f");
  ASSERT_EQ(leaks.size(), 1u);
  EXPECT_FALSE(leaks[0].exceptional);
  const ir::FunctionIR* fn = findUnit(result, "f");
  EXPECT_EQ(fn->nodes[leaks[0].exit].event.range.startLine, 4u); // `return 1`
}

TEST(CfgBuilder, WhileTrueOnlyLeavesThroughBreak) {
  auto result = lowerSnippet("import torch\n"
                             "def f(items):\n"
                             "    torch.set_grad_enabled(False)\n"
                             "    while True:\n"
                             "        if items:\n"
                             "            torch.set_grad_enabled(True)\n"
                             "            break\n");
  EXPECT_TRUE(leaksOf(result, "f").empty()) << ir::dumpCfg(*findUnit(result, "f"));
}

TEST(CfgBuilder, ForElseAndContinue) {
  auto result = lowerSnippet("import torch\n"
                             "def f(items):\n"
                             "    for item in items:\n"
                             "        torch.set_grad_enabled(False)\n"
                             "        if item:\n"
                             "            continue\n"
                             "        torch.set_grad_enabled(True)\n"
                             "    else:\n"
                             "        pass\n");
  auto leaks = leaksOf(result, "f");
  ASSERT_EQ(leaks.size(), 1u); // `continue` skips the restore and the loop can end
  EXPECT_FALSE(leaks[0].exceptional);
}

TEST(CfgBuilder, BreakRunsEnclosingFinally) {
  auto result = lowerSnippet("import torch\n"
                             "def f(items):\n"
                             "    prev = torch.is_grad_enabled()\n"
                             "    for item in items:\n"
                             "        torch.set_grad_enabled(False)\n"
                             "        try:\n"
                             "            if item:\n"
                             "                break\n"
                             "        finally:\n"
                             "            torch.set_grad_enabled(prev)\n");
  EXPECT_TRUE(leaksOf(result, "f").empty()) << ir::dumpCfg(*findUnit(result, "f"));
}

TEST(CfgBuilder, MatchWithoutWildcardCanFallThrough) {
  auto result = lowerSnippet("import torch\n"
                             "def f(cmd):\n"
                             "    torch.set_grad_enabled(False)\n"
                             "    match cmd:\n"
                             "        case 'a':\n"
                             "            torch.set_grad_enabled(True)\n"
                             "        case _:\n"
                             "            torch.set_grad_enabled(True)\n"
                             "def g(cmd):\n"
                             "    torch.set_grad_enabled(False)\n"
                             "    match cmd:\n"
                             "        case 'a':\n"
                             "            torch.set_grad_enabled(True)\n");
  EXPECT_TRUE(leaksOf(result, "f").empty());
  EXPECT_EQ(leaksOf(result, "g").size(), 1u);
}

TEST(CfgBuilder, YieldAndAwaitAreExits) {
  auto result = lowerSnippet("import torch\n"
                             "def gen():\n"
                             "    torch.set_grad_enabled(False)\n"
                             "    yield 1\n"
                             "    torch.set_grad_enabled(True)\n"
                             "async def co(x):\n"
                             "    torch.set_grad_enabled(False)\n"
                             "    await x\n"
                             "    torch.set_grad_enabled(True)\n");
  auto gen = leaksOf(result, "gen");
  ASSERT_EQ(gen.size(), 1u);
  EXPECT_EQ(findUnit(result, "gen")->nodes[gen[0].exit].event.kind, EventKind::Yield);
  EXPECT_TRUE(findUnit(result, "gen")->isGenerator);
  auto co = leaksOf(result, "co");
  ASSERT_EQ(co.size(), 1u);
  EXPECT_EQ(findUnit(result, "co")->nodes[co[0].exit].event.kind, EventKind::Await);
  EXPECT_TRUE(findUnit(result, "co")->isAsync);
}

TEST(CfgBuilder, WithBlocksAreGuardsNotToggles) {
  auto result = lowerSnippet("import torch\n"
                             "def f(x):\n"
                             "    with torch.no_grad(), torch.set_grad_enabled(False):\n"
                             "        return x()\n");
  const ir::FunctionIR* fn = findUnit(result, "f");
  EXPECT_EQ(countEvents(*fn, EventKind::EnterGuard), 2u);
  // Two exits on the return path, two more where an exception leaves the block.
  EXPECT_EQ(countEvents(*fn, EventKind::ExitGuard), 4u) << ir::dumpCfg(*fn);
  EXPECT_EQ(countEvents(*fn, EventKind::SetGrad), 0u);
}

TEST(CfgBuilder, AToggleInsideAGradWithBlockEndsWithTheBlock) {
  auto result = lowerSnippet("import torch\n"
                             "def f(x):\n"
                             "    with torch.enable_grad():\n"
                             "        torch.set_grad_enabled(False)\n"
                             "        y = x()\n"
                             "    return y\n");
  EXPECT_TRUE(leaksOf(result, "f").empty()) << ir::dumpCfg(*findUnit(result, "f"));
}

TEST(CfgBuilder, NamesResolveThroughImports) {
  auto result = lowerSnippet("import torch as th\n"
                             "from torch import set_grad_enabled as sge\n"
                             "import torch.autograd.grad_mode as gm\n"
                             "from paddle import set_grad_enabled\n"
                             "def f():\n"
                             "    th.set_grad_enabled(False)\n"
                             "    sge(False)\n"
                             "    gm.set_grad_enabled(False)\n"
                             "    set_grad_enabled(False)\n"
                             "    'torch.set_grad_enabled(False)'\n");
  EXPECT_EQ(countEvents(*findUnit(result, "f"), EventKind::SetGrad), 3u);
}

TEST(CfgBuilder, DeepNestingIsReportedNotRecursed) {
  // One-space indents: tree-sitter-python's scanner loses track past column 255.
  std::string code = "def f():\n";
  std::string indent = " ";
  for (int depth = 0; depth < 150; ++depth) {
    code += indent + "if x:\n";
    indent += " ";
  }
  code += indent + "pass\n";
  auto result = lowerSnippet(code);
  bool reported = false;
  for (const Diagnostic& d : result.frontendDiagnostics) {
    reported = reported || d.message.find("indentation") != std::string::npos;
  }
  EXPECT_TRUE(reported);
}

} // namespace
} // namespace gradlint
