// LiveSummaries::warmUp: a workspace summarised in runs closed under imports gives the summaries
// of one run over all of it, and a warm-up stopped between runs resumes where it stopped.
#include "program/engine.h"
#include "program/live_summaries.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace gradlint {
namespace {

FileInput module(const std::string& name, const std::string& text) {
  FileInput input;
  input.ref.path = "/workspace/" + name + ".py";
  input.ref.moduleName = name;
  input.contents = text;
  input.context = true;
  return input;
}

// A chain (c calls b calls a, whose `freeze` leaves grad mode disabled), an import cycle (d and
// e), and a module on its own; listed importers first, the order a warm-up must not rely on.
std::vector<FileInput> workspace() {
  return {
      module("c", "from b import step\n\ndef outer():\n    step()\n"),
      module("e", "import d\n\ndef pong():\n    d.ping()\n"),
      module("b", "from a import freeze\n\ndef step():\n    freeze()\n"),
      module("d", "import torch\nimport e\n\ndef ping():\n    torch.set_grad_enabled(False)\n"
                  "\ndef bounce():\n    e.pong()\n"),
      module("a", "import torch\n\ndef freeze():\n    torch.set_grad_enabled(False)\n"),
      module("alone", "def nothing():\n    return 1\n"),
  };
}

CheckOptions contextOptions() {
  CheckOptions options;
  options.keepSummaries = true;
  options.threads = 1;
  return options;
}

bool leavesDisabled(const ir::SummaryTable& table, const std::string& name) {
  const ir::FunctionSummary* summary = table.find(name);
  return summary != nullptr && summary->mayLeaveDisabled;
}

TEST(LiveSummaries, WarmUpInRunsEqualsOneRun) {
  LiveSummaries warm;
  LiveSummariesStats stats;
  ASSERT_TRUE(warm.warmUp(workspace(), contextOptions(), 1, [] { return true; }, stats));
  EXPECT_EQ(stats.modules, 6u);
  EXPECT_EQ(stats.summarised, 6u); // each module once: every run was closed under imports
  // Asked afterwards, nothing is summarised again, and the summaries are those of one run.
  LiveSummariesStats after;
  const auto table = warm.summarise(workspace(), contextOptions(), after);
  EXPECT_EQ(after.summarised, 0u);
  LiveSummaries cold;
  LiveSummariesStats once;
  const auto expected = cold.summarise(workspace(), contextOptions(), once);
  for (const std::string name : {"a.freeze", "b.step", "c.outer", "d.ping", "d.bounce",
                                 "e.pong"}) {
    EXPECT_TRUE(leavesDisabled(*table, name)) << name;
    EXPECT_EQ(leavesDisabled(*table, name), leavesDisabled(*expected, name)) << name;
  }
  EXPECT_FALSE(leavesDisabled(*table, "alone.nothing"));
}

TEST(LiveSummaries, StoppedWarmUpResumes) {
  LiveSummaries live;
  LiveSummariesStats stats;
  int runs = 0;
  EXPECT_FALSE(live.warmUp(workspace(), contextOptions(), 2, [&] { return ++runs <= 1; },
                           stats));
  EXPECT_GT(stats.summarised, 0u);
  EXPECT_LT(stats.summarised, 6u);
  const size_t first = stats.summarised;
  ASSERT_TRUE(live.warmUp(workspace(), contextOptions(), 2, [] { return true; }, stats));
  EXPECT_EQ(first + stats.summarised, 6u); // the second call summarised only the rest
  LiveSummariesStats after;
  live.summarise(workspace(), contextOptions(), after);
  EXPECT_EQ(after.summarised, 0u);
}

} // namespace
} // namespace gradlint
