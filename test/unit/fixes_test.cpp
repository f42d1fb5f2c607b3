// Applying fixes, the unified diff, the atomic writer, and the syntax helpers rules build
// fixes with.
#include "rules/fix_support.h"
#include "tool/fixes.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <sys/stat.h>
#include <unistd.h>

namespace gradlint {
namespace {

namespace fs = std::filesystem;

Diagnostic withFix(std::vector<Edit> edits, Applicability applicability = Applicability::Safe) {
  Diagnostic diagnostic;
  diagnostic.code = "GL105";
  Fix fix;
  fix.applicability = applicability;
  fix.edits = std::move(edits);
  diagnostic.fix = std::move(fix);
  return diagnostic;
}

std::string readAll(const fs::path& path) {
  std::ifstream stream(path, std::ios::binary);
  std::ostringstream buffer;
  buffer << stream.rdbuf();
  return buffer.str();
}

class TempFolder {
public:
  TempFolder() {
    std::string pattern = (fs::temp_directory_path() / "gradlint-fixes-XXXXXX").string();
    path_ = ::mkdtemp(pattern.data());
  }
  ~TempFolder() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  TempFolder(const TempFolder&) = delete;
  TempFolder& operator=(const TempFolder&) = delete;
  const fs::path& path() const { return path_; }
  size_t entries() const {
    return static_cast<size_t>(std::distance(fs::directory_iterator(path_), {}));
  }

private:
  fs::path path_;
};

TEST(ApplyFixes, AppliesNonOverlappingEditsInOrder) {
  const std::string text = "abcdef";
  const AppliedFixes result =
      applyFixes(text, {withFix({{4, 4, "X"}}), withFix({{0, 1, "A"}, {2, 2, "-"}})}, false);
  EXPECT_EQ(result.text, "Ab-cdXef");
  EXPECT_EQ(result.fixed, 2u);
}

TEST(ApplyFixes, OverlapsWaitUnsafeNeedsConsent) {
  const std::string text = "abcdef";
  // The second fix overlaps the first: left for the next round.
  AppliedFixes result = applyFixes(text, {withFix({{0, 3, "X"}}), withFix({{2, 4, "Y"}})}, false);
  EXPECT_EQ(result.text, "Xdef");
  EXPECT_EQ(result.fixed, 1u);
  // Two insertions at one offset conflict as well.
  result = applyFixes(text, {withFix({{1, 1, "1"}}), withFix({{1, 1, "2"}})}, false);
  EXPECT_EQ(result.text, "a1bcdef");
  // Unsafe fixes only with consent.
  const Diagnostic unsafe = withFix({{0, 1, "Z"}}, Applicability::Unsafe);
  EXPECT_EQ(applyFixes(text, {unsafe}, false).fixed, 0u);
  EXPECT_EQ(applyFixes(text, {unsafe}, true).text, "Zbcdef");
}

TEST(ApplyFixes, SharedFixCountsForEachFindingAndBadEditsAreIgnored) {
  const std::string text = "abc";
  AppliedFixes result = applyFixes(text, {withFix({{0, 1, "X"}}), withFix({{0, 1, "X"}})}, false);
  EXPECT_EQ(result.text, "Xbc");
  EXPECT_EQ(result.fixed, 2u);
  result = applyFixes(text, {withFix({{2, 9, "X"}}), withFix({{2, 1, "X"}}), Diagnostic{}}, true);
  EXPECT_EQ(result.text, "abc");
  EXPECT_EQ(result.fixed, 0u);
}

TEST(ApplyFixes, AFixWhoseOwnEditsOverlapIsNotAppliedInPart) {
  const std::string text = "abcdef";
  // Applying only the first of these edits would leave half a rewrite in the file.
  AppliedFixes result =
      applyFixes(text, {withFix({{0, 3, "X"}, {2, 4, "Y"}}), withFix({{5, 6, "Z"}})}, false);
  EXPECT_EQ(result.text, "abcdeZ");
  EXPECT_EQ(result.fixed, 1u);
}

TEST(UnifiedDiff, HunksWithContextAndFirstLineChanges) {
  EXPECT_EQ(unifiedDiff("a.py", "same\n", "same\n"), "");
  EXPECT_EQ(unifiedDiff("a.py", "one\ntwo\n", "ONE\ntwo\n"),
            "--- a/a.py\n+++ b/a.py\n@@ -1,2 +1,2 @@\n-one\n+ONE\n two\n");
  std::string before;
  std::string after;
  for (int i = 1; i <= 20; ++i) {
    before += "line" + std::to_string(i) + "\n";
    after += (i == 10 ? "changed" : "line" + std::to_string(i)) + "\n";
  }
  EXPECT_EQ(unifiedDiff("p/b.py", before, after),
            "--- a/p/b.py\n+++ b/p/b.py\n@@ -7,7 +7,7 @@\n line7\n line8\n line9\n-line10\n"
            "+changed\n line11\n line12\n line13\n");
  // Insertions move the new side's numbers.
  EXPECT_EQ(unifiedDiff("c.py", "a\nb\n", "a\nx\ny\nb\n"),
            "--- a/c.py\n+++ b/c.py\n@@ -1,2 +1,4 @@\n a\n+x\n+y\n b\n");
}

TEST(UnifiedDiff, MissingFinalNewlineIsMarked) {
  EXPECT_EQ(unifiedDiff("a.py", "x = 1", "x = 2"),
            "--- a/a.py\n+++ b/a.py\n@@ -1,1 +1,1 @@\n-x = 1\n\\ No newline at end of file\n"
            "+x = 2\n\\ No newline at end of file\n");
}

TEST(AtomicWrite, ReplacesContentsKeepsModeAndLeavesNoTemporaryFile) {
  TempFolder folder;
  const fs::path file = folder.path() / "a.py";
  std::ofstream(file) << "old\n";
  ASSERT_EQ(::chmod(file.c_str(), 0751), 0);
  std::string error;
  ASSERT_TRUE(writeFileAtomically(file.string(), "new\n", error)) << error;
  EXPECT_EQ(readAll(file), "new\n");
  struct stat info {};
  ASSERT_EQ(::stat(file.c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 07777, 0751u);
  EXPECT_EQ(folder.entries(), 1u);
}

TEST(AtomicWrite, WritesThroughSymlinks) {
  TempFolder folder;
  const fs::path target = folder.path() / "real.py";
  const fs::path link = folder.path() / "link.py";
  std::ofstream(target) << "old\n";
  fs::create_symlink(target, link);
  std::string error;
  ASSERT_TRUE(writeFileAtomically(link.string(), "new\n", error)) << error;
  EXPECT_TRUE(fs::is_symlink(link));
  EXPECT_EQ(readAll(target), "new\n");
}

TEST(AtomicWrite, FailureLeavesTheOriginalIntact) {
  TempFolder folder;
  const fs::path file = folder.path() / "a.py";
  std::ofstream(file) << "original\n";
  ::setenv("GRADLINT_TEST_FAIL_WRITE", "1", 1);
  std::string error;
  const bool written = writeFileAtomically(file.string(), "fixed\n", error);
  ::unsetenv("GRADLINT_TEST_FAIL_WRITE");
  EXPECT_FALSE(written);
  EXPECT_EQ(error, file.string() + ": cannot write the fix: simulated failure "
                                   "(GRADLINT_TEST_FAIL_WRITE=1)");
  EXPECT_EQ(readAll(file), "original\n");
  EXPECT_EQ(folder.entries(), 1u); // the temporary file is gone

  error.clear();
  EXPECT_FALSE(writeFileAtomically((folder.path() / "missing.py").string(), "x", error));
  EXPECT_NE(error.find("missing.py: cannot write the fix: No such file or directory"),
            std::string::npos)
      << error;
}

TEST(FixSyntax, IndentationSkipsBlankLinesAndStringInteriors) {
  const SourceText source("a.py", "def f():\n    x = 1\n\n    s = '''\nraw\n'''\n    return s\n");
  const rules::FixSyntax syntax(source);
  const std::vector<Edit> edits = syntax.indentLines(1, 6, "    ");
  std::vector<uint32_t> lines;
  for (const Edit& edit : edits) lines.push_back(source.lineOf(edit.startByte));
  EXPECT_EQ(lines, (std::vector<uint32_t>{1, 3, 6})); // not 2 (blank), 4 and 5 (in the string)
  EXPECT_EQ(syntax.indentUnit(1), "    ");
  const SourceText tabs("t.py", "def f():\n\tx = 1\n");
  EXPECT_EQ(rules::FixSyntax(tabs).indentUnit(1), "\t");
}

TEST(FixSyntax, OnlyStandaloneCallStatements) {
  const std::string code = "import torch\ntorch.no_grad()  # note\na(); torch.no_grad()\n"
                           "x = torch.no_grad()\nif x: torch.no_grad()\n";
  const SourceText source("a.py", code);
  const rules::FixSyntax syntax(source);
  auto statementAt = [&](std::string_view needle, size_t from = 0) {
    const auto start = static_cast<uint32_t>(code.find(needle, from));
    return syntax.standaloneCallStatement(
        source.range(start, start + static_cast<uint32_t>(needle.size())));
  };
  EXPECT_FALSE(ts_node_is_null(statementAt("torch.no_grad()")));
  EXPECT_TRUE(ts_node_is_null(statementAt("torch.no_grad()", code.find("a();"))));
  EXPECT_TRUE(ts_node_is_null(statementAt("torch.no_grad()", code.find("x ="))));
  EXPECT_TRUE(ts_node_is_null(statementAt("torch.no_grad()", code.find("if x"))));
}

TEST(FixSyntax, OnlyCodeThatParses) {
  // Each top-level definition is parsed alone: no fix inside one that does not parse, and a
  // syntax error there does not keep a fix from the next one.
  const std::string code = "def broken(:\n    torch.no_grad()\n\n\ndef f():\n    torch.no_grad()\n";
  const SourceText source("b.py", code);
  const rules::FixSyntax syntax(source);
  auto statementAt = [&](size_t from) {
    const auto start = static_cast<uint32_t>(code.find("torch.no_grad()", from));
    return syntax.standaloneCallStatement(source.range(start, start + 15));
  };
  EXPECT_TRUE(ts_node_is_null(statementAt(0)));
  EXPECT_FALSE(ts_node_is_null(statementAt(code.find("def f"))));
  // Module-level code is parsed with the whole file: an error anywhere means no fix there.
  const std::string module = "import torch\ntorch.no_grad()\n\n\ndef broken(:\n    pass\n";
  const SourceText moduleSource("m.py", module);
  const rules::FixSyntax moduleSyntax(moduleSource);
  const auto start = static_cast<uint32_t>(module.find("torch.no_grad()"));
  EXPECT_TRUE(ts_node_is_null(
      moduleSyntax.standaloneCallStatement(moduleSource.range(start, start + 15))));
}

} // namespace
} // namespace gradlint
