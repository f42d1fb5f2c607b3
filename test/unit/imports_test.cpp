// scanImports where its plain runs are skipped many bytes at a time: a special byte at every
// offset of a block, and the bytes that stop the skip but are plain (`&`, `|`, `#` in strings).
#include "checkers/python/imports.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace gradlint {
namespace {

std::vector<std::string> modules(const std::string& text) {
  std::vector<std::string> out;
  for (const python::ImportStatement& statement : python::scanImports(text)) {
    out.push_back(statement.module + "@" + std::to_string(statement.line));
  }
  return out;
}

TEST(ScanImportsRuns, SpecialBytesAtEveryOffset) {
  // Each special byte after 0..40 plain bytes: the run skip must stop exactly there.
  const std::string specials[] = {"'import no'", "\"import no\"", "# import no", "(import_no)",
                                  "[\nimport_no]", "{\nimport_no}", "x: import a", "x; import a",
                                  "\\\nimport_no"};
  for (const std::string& special : specials) {
    for (size_t pad = 0; pad <= 40; ++pad) {
      const std::string text = "v = " + std::string(pad, 'x') + special + "\nimport b\n";
      std::vector<std::string> expected;
      if (special.find("import a") != std::string::npos) expected.push_back("a@1");
      // A line joined by a backslash ends on the second line.
      expected.push_back(special.starts_with("\\") || special.find('\n') != std::string::npos
                             ? "b@3"
                             : "b@2");
      EXPECT_EQ(modules(text), expected) << "pad " << pad << ": " << special;
    }
  }
}

TEST(ScanImportsRuns, BytesThatStopTheSkipButArePlain) {
  const std::string text = "flags = a | b & c & d | e || f && g                 \n"
                           "s = 'x & y | z # not a comment \" still the string'\n"
                           "t = \"\"\"& | # '\n"
                           "import inside_a_docstring &&&&&&&&&&&&&&&&&&&&&&&&&&&&&&&&&&&&\n"
                           "\"\"\" ; import after_docstring\n"
                           "u = 'it\\'s & | # \\\\'; from m import (n, # & |\n"
                           "    o)\n";
  EXPECT_EQ(modules(text), (std::vector<std::string>{"after_docstring@5", "m@6"}));
}

TEST(ScanImportsRuns, LongStringsAndLinesCountedAcrossBlocks) {
  std::string text;
  for (int i = 0; i < 50; ++i) text += "x = '" + std::string(static_cast<size_t>(i), 'a') + "'\n";
  text += "\"\"\"\n" + std::string(100, 'q') + "\nimport no\n" + std::string(33, '&') + "\n\"\"\"\n";
  text += "import last\n";
  EXPECT_EQ(modules(text), (std::vector<std::string>{"last@56"}));
}

} // namespace
} // namespace gradlint
