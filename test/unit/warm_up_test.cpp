// The language server's warm-up collects nothing for a folder in no project, or past its limits.
#include "tool/lsp/workspace_warm_up.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include <unistd.h>

namespace gradlint::lsp {
namespace {

namespace fs = std::filesystem;

class WarmUpTest : public ::testing::Test {
protected:
  void SetUp() override {
    // Under the system's temporary folder: no project marker above it.
    const ::testing::UnitTest& run = *::testing::UnitTest::GetInstance();
    root_ = fs::temp_directory_path() / ("gradlint-warm-up-" + std::to_string(::getpid()) + "-" +
                                         run.current_test_info()->name());
    fs::remove_all(root_);
    fs::create_directories(root_);
    write("a.py", "import b\n");
    write("b.py", "import torch\n\ndef f():\n    torch.set_grad_enabled(False)\n");
  }
  void TearDown() override { fs::remove_all(root_); }
  void write(const std::string& name, const std::string& text) {
    std::ofstream(root_ / name) << text;
  }
  fs::path root_;
};

TEST_F(WarmUpTest, FolderInNoProjectIsNotWarmedUp) {
  const WorkspaceModules found = collectWorkspaceModules(root_.string(), WarmUpLimits{});
  EXPECT_TRUE(found.modules.empty());
  EXPECT_NE(found.trace.find("no warm-up (not a project folder)"), std::string::npos)
      << found.trace;
}

TEST_F(WarmUpTest, ProjectModulesAreContextModulesWithTheirText) {
  write("pyproject.toml", "");
  const WorkspaceModules found = collectWorkspaceModules(root_.string(), WarmUpLimits{});
  ASSERT_EQ(found.projectModules, 2u) << found.trace;
  for (const FileInput& input : found.modules) {
    EXPECT_TRUE(input.context) << input.ref.path;
    EXPECT_TRUE(input.contents.has_value()) << input.ref.path;
  }
}

TEST_F(WarmUpTest, WorkspacePastTheLimitsIsNotWarmedUp) {
  write("pyproject.toml", "");
  WarmUpLimits limits;
  limits.maxFiles = 1;
  const WorkspaceModules found = collectWorkspaceModules(root_.string(), limits);
  EXPECT_TRUE(found.modules.empty());
  EXPECT_NE(found.trace.find("no warm-up (more than 1 Python files"), std::string::npos)
      << found.trace;
}

} // namespace
} // namespace gradlint::lsp
