// The dataflow engine and the grad-state analysis on hand-built graphs, and the summaries.
#include "checkers/ir/dataflow.h"
#include "checkers/ir/grad_state.h"
#include "checkers/ir/summaries.h"
#include "test_support.h"

#include <gtest/gtest.h>

namespace gradlint::ir {
namespace {

// Builds graphs node by node: add() appends, edge() links.
struct GraphBuilder {
  FunctionIR fn;
  GraphBuilder() {
    fn.entry = add(EventKind::Entry);
    fn.normalExit = add(EventKind::NormalExit);
    fn.exceptionalExit = add(EventKind::ExceptionalExit);
  }
  NodeId add(EventKind kind, GradValue value = GradValue::Unknown) {
    Event event;
    event.kind = kind;
    event.value = value;
    event.range.startByte = static_cast<uint32_t>(fn.nodes.size());
    fn.nodes.push_back(Node{event, {}, kNoNode});
    return static_cast<NodeId>(fn.nodes.size() - 1);
  }
  void edge(NodeId from, NodeId to) { fn.nodes[from].succs.push_back(to); }
};

// A counting analysis: checks the engine itself (joins, loops, exception edges).
struct ReachCount {
  int entryFact() const { return 0; }
  bool join(int& into, const int& from) const {
    if (from <= into) return false;
    into = from;
    return true;
  }
  int transfer(NodeId, const Node& node, const int& in) const {
    return node.event.kind == EventKind::Call ? std::min(in + 1, 3) : in;
  }
  int exceptionFact(NodeId, const Node&, const int& in) const { return in; }
};

TEST(Dataflow, LoopsReachAFixpoint) {
  GraphBuilder g;
  const NodeId head = g.add(EventKind::Nop);
  const NodeId call = g.add(EventKind::Call);
  g.edge(g.fn.entry, head);
  g.edge(head, call);
  g.edge(call, head);
  g.edge(head, g.fn.normalExit);
  ReachCount analysis;
  auto result = solveForward(g.fn, analysis);
  EXPECT_TRUE(result.reached[g.fn.normalExit]);
  EXPECT_EQ(result.in[g.fn.normalExit], 3); // saturated at the lattice top
  EXPECT_FALSE(result.reached[g.fn.exceptionalExit]);
}

TEST(Dataflow, ExceptionEdgesCarryTheStateBeforeTheEvent) {
  GraphBuilder g;
  const NodeId toggle = g.add(EventKind::SetGrad, GradValue::Disabled);
  const NodeId call = g.add(EventKind::Call);
  const NodeId restore = g.add(EventKind::SetGrad, GradValue::Enabled);
  g.edge(g.fn.entry, toggle);
  g.edge(toggle, call);
  g.fn.nodes[call].exceptionSucc = g.fn.exceptionalExit;
  g.edge(call, restore);
  g.edge(restore, g.fn.normalExit);
  const NodeId ret = g.add(EventKind::Return);
  g.edge(restore, ret);
  g.edge(ret, g.fn.normalExit);
  GradStateReport report = analyzeGradState(g.fn, nullptr);
  ASSERT_EQ(report.leaks.size(), 1u);
  EXPECT_TRUE(report.leaks[0].exceptional);
  EXPECT_EQ(report.leaks[0].toggle, toggle);
  auto path = witnessPath(g.fn, report.flow, toggle, g.fn.exceptionalExit);
  EXPECT_EQ(path, (std::vector<NodeId>{toggle, call, g.fn.exceptionalExit}));
}

TEST(Dataflow, JoinKeepsEveryToggleThatMayBeInForce) {
  GraphBuilder g;
  const NodeId a = g.add(EventKind::SetGrad, GradValue::Disabled);
  const NodeId b = g.add(EventKind::SetGrad, GradValue::Unknown);
  const NodeId ret = g.add(EventKind::Return);
  g.edge(g.fn.entry, a);
  g.edge(g.fn.entry, b);
  g.edge(a, ret);
  g.edge(b, ret);
  g.edge(ret, g.fn.normalExit);
  GradStateReport report = analyzeGradState(g.fn, nullptr);
  EXPECT_EQ(report.flow.in[ret].open, (ToggleSet{a, b}));
  EXPECT_EQ(report.leaks.size(), 2u);
}

TEST(Summaries, HelperPairRestoresAcrossCalls) {
  auto result = testing::lowerSnippet("import torch\n"
                                      "def _enter():\n"
                                      "    prev = torch.is_grad_enabled()\n"
                                      "    torch.set_grad_enabled(False)\n"
                                      "    return prev\n"
                                      "def _leave(prev):\n"
                                      "    torch.set_grad_enabled(prev)\n"
                                      "def good(x):\n"
                                      "    prev = _enter()\n"
                                      "    try:\n"
                                      "        return x()\n"
                                      "    finally:\n"
                                      "        _leave(prev)\n"
                                      "def bad(x):\n"
                                      "    _enter()\n"
                                      "    return x()\n",
                                      "pkg.mod");
  SummaryTable table = computeSummaries({&result.module});
  const FunctionSummary* enter = table.find("pkg.mod._enter");
  ASSERT_NE(enter, nullptr);
  EXPECT_TRUE(enter->mayLeaveDisabled);
  EXPECT_TRUE(enter->returnsSavedMode);
  const FunctionSummary* leave = table.find("pkg.mod._leave");
  ASSERT_NE(leave, nullptr);
  EXPECT_EQ(leave->restoresArgs, std::vector<int>{0});
  EXPECT_EQ(table.callerCount("pkg.mod._enter"), 2);
  EXPECT_TRUE(analyzeGradState(*testing::findUnit(result, "good"), &table).leaks.empty());
  // `_enter()` leaks through the return (and through the exception `x()` may raise).
  auto bad = analyzeGradState(*testing::findUnit(result, "bad"), &table).leaks;
  ASSERT_EQ(bad.size(), 2u);
  EXPECT_FALSE(bad[0].exceptional);
  EXPECT_TRUE(bad[1].exceptional);
  EXPECT_EQ(bad[0].toggle, bad[1].toggle);
}

TEST(Summaries, ARecursiveCallIsNotASecondToggle) {
  auto result = testing::lowerSnippet("import torch\n"
                                      "def walk(n):\n"
                                      "    torch.set_grad_enabled(False)\n"
                                      "    if n:\n"
                                      "        walk(n - 1)\n",
                                      "pkg.mod");
  SummaryTable table = computeSummaries({&result.module});
  auto leaks = analyzeGradState(*testing::findUnit(result, "walk"), &table).leaks;
  ASSERT_FALSE(leaks.empty());
  for (const Leak& leak : leaks) {
    EXPECT_EQ(testing::findUnit(result, "walk")->nodes[leak.toggle].event.kind,
              EventKind::SetGrad);
  }
}

TEST(Summaries, ChainsThroughSeveralHelpers) {
  auto result = testing::lowerSnippet("import torch\n"
                                      "def _a():\n"
                                      "    torch.set_grad_enabled(False)\n"
                                      "def _b():\n"
                                      "    _a()\n"
                                      "def c():\n"
                                      "    _b()\n",
                                      "pkg.mod");
  SummaryTable table = computeSummaries({&result.module});
  ASSERT_NE(table.find("pkg.mod._b"), nullptr);
  EXPECT_TRUE(table.find("pkg.mod._b")->mayLeaveDisabled);
  EXPECT_EQ(table.find("pkg.mod._b")->toggleRange.startLine, 2u); // the root cause in _a
}

// Callers come before their helpers, so each round makes one more summary visible: only the
// callers of what changed are analysed again, and the analyses handed out for the rules are
// those a fresh analysis against the final table gives.
TEST(Summaries, ReportsHoldForTheFinalTable) {
  auto result = testing::lowerSnippet("import torch\n"
                                      "def d():\n"
                                      "    c()\n"
                                      "def c():\n"
                                      "    _b()\n"
                                      "def _b():\n"
                                      "    _a()\n"
                                      "def _a():\n"
                                      "    torch.set_grad_enabled(False)\n"
                                      "def unrelated():\n"
                                      "    print(1)\n",
                                      "pkg.mod");
  GradStateReports reports;
  SummaryTable table = computeSummaries({&result.module}, &reports);
  ASSERT_NE(table.find("pkg.mod.d"), nullptr);
  EXPECT_TRUE(table.find("pkg.mod.d")->mayLeaveDisabled);
  for (const char* name : {"d", "c", "_b", "_a"}) {
    const FunctionIR* fn = testing::findUnit(result, name);
    const auto kept = reports.find(fn);
    ASSERT_NE(kept, reports.end()) << name;
    const GradStateReport fresh = analyzeGradState(*fn, &table);
    ASSERT_EQ(kept->second.leaks.size(), fresh.leaks.size()) << name;
    ASSERT_FALSE(fresh.leaks.empty()) << name;
    for (size_t i = 0; i < fresh.leaks.size(); ++i) {
      EXPECT_EQ(kept->second.leaks[i].toggle, fresh.leaks[i].toggle) << name;
      EXPECT_EQ(kept->second.leaks[i].exit, fresh.leaks[i].exit) << name;
    }
  }
  // Touches no grad mode and calls nothing summarised: never analysed.
  EXPECT_EQ(reports.count(testing::findUnit(result, "unrelated")), 0u);
}

// The compact node: interned names, fields allocated on write, inline successors.
TEST(CompactNode, InternedStringsShareTextAndCompareAsStrings) {
  const std::string text = "torch.nn.functional.relu";
  const InternedString a = text;
  const InternedString b = std::string_view(text);
  EXPECT_EQ(&a.str(), &b.str());
  EXPECT_EQ(a, b);
  EXPECT_EQ(a, text);
  EXPECT_EQ(a, "torch.nn.functional.relu");
  EXPECT_NE(a, InternedString("torch"));
  EXPECT_LT(InternedString("a"), InternedString("b"));
  EXPECT_LT(InternedString("a"), std::string("b"));
  EXPECT_TRUE(InternedString().empty());
  EXPECT_EQ(InternedString(""), InternedString());
  EXPECT_EQ(fmt::format("{}", a), text);
}

TEST(CompactNode, RareFieldsReadEmptyAndCopyDeep) {
  Event event;
  EXPECT_TRUE(event.call().argVars.empty());
  EXPECT_TRUE(event.sources().deps.empty());
  event.writeCall().argVars.emplace_back("x");
  event.writeSources().aliasOf = "pipe.unet";
  Event copy = event;
  copy.writeCall().argVars.emplace_back("y");
  EXPECT_EQ(event.call().argVars.size(), 1u);
  EXPECT_EQ(copy.call().argVars.size(), 2u);
  EXPECT_EQ(copy.sources().aliasOf, "pipe.unet");
}

TEST(CompactNode, SuccessorsGrowPastTheInlineOnes) {
  Successors succs;
  for (NodeId id = 0; id < 5; ++id) succs.push_back(id * 10);
  Successors copy = succs;
  Successors moved = std::move(succs);
  for (const Successors* list : {&copy, &moved}) {
    ASSERT_EQ(list->size(), 5u);
    EXPECT_EQ((std::vector<NodeId>(list->begin(), list->end())),
              (std::vector<NodeId>{0, 10, 20, 30, 40}));
  }
  Successors two;
  two.push_back(1);
  two.push_back(2);
  Successors twoCopy = two;
  EXPECT_EQ(twoCopy.size(), 2u);
  EXPECT_EQ(twoCopy[1], 2u);
}

} // namespace
} // namespace gradlint::ir
