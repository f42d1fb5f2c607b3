#include "checkers/python/source_text.h"

#include <gtest/gtest.h>

namespace gradlint {
namespace {

TEST(SourceText, LineEndsOfEveryKind) {
  SourceText text("t.py", "a\nb\r\nc\rd");
  ASSERT_EQ(text.lineCount(), 4u);
  EXPECT_EQ(text.lineText(1), "b");
  EXPECT_EQ(text.lineText(2), "c");
  EXPECT_EQ(text.lineOf(7), 3u); // 'd'
}

TEST(SourceText, ColumnsCountCodePointsNotBytes) {
  SourceText text("t.py", "x = 'é∑'; f()\n");
  const uint32_t call = static_cast<uint32_t>(std::string("x = 'é∑'; ").size());
  ir::SourceRange range = text.range(call, call + 3);
  EXPECT_EQ(range.startColumn, 10u);
  EXPECT_EQ(range.endColumn, 13u);
}

TEST(SourceText, ByteOrderMarkIsNotAColumn) {
  SourceText text("t.py", "\xEF\xBB\xBFimport torch\n");
  EXPECT_EQ(text.contentStart(), 3u);
  EXPECT_EQ(text.range(3, 9).startColumn, 0u);
}

TEST(SourceText, ManyLookupsOnOneLongLineStayLinear) {
  std::string line(200000, 'a');
  SourceText text("t.py", line);
  uint32_t last = 0;
  for (uint32_t at = 0; at < line.size(); at += 7) last = text.range(at, at + 1).startColumn;
  EXPECT_EQ(last, (line.size() - 1) / 7 * 7);
}

// countCodePoints counts eight bytes at a time: every length and alignment must give what a
// byte-by-byte count of the bytes that are not continuation bytes gives.
TEST(SourceText, CodePointCountsMatchAPlainCount) {
  std::string bytes;
  const char* const pieces[] = {"a",                // ASCII
                                "\xC3\xA9",         // é
                                "\xE4\xBD\xA0",     // 你
                                "\xF0\x9F\x98\x80", // 😀
                                "\xFF",             // no UTF-8 at all
                                "\x80"};            // a stray continuation byte
  for (int i = 0; i < 200; ++i) bytes += pieces[(i * 7) % 6];
  for (size_t start = 0; start < 9; ++start) {
    for (size_t length = 0; start + length <= bytes.size(); length += 1 + length / 8) {
      const std::string_view piece = std::string_view(bytes).substr(start, length);
      uint32_t plain = 0;
      for (unsigned char c : piece) plain += (c & 0xC0) != 0x80;
      EXPECT_EQ(countCodePoints(piece), plain) << start << "+" << length;
    }
  }
}

// Nested constructs on one line ask for columns out of order (outer start, inner start, inner
// end, outer end): every answer must match a plain count, across the index's block boundaries
// and multi-byte characters that straddle them.
TEST(SourceText, ColumnsAreRightInAnyLookupOrder) {
  std::string bytes = "\xEF\xBB\xBFx\n";
  const char* const pieces[] = {"\xE4\xBD\xA0", "(", "\xF0\x9F\x98\x80"}; // 你 ( 😀
  for (int i = 0; i < 3000; ++i) bytes += pieces[i % 3];
  bytes += "\r\n\xFF tail";
  const SourceText text("t.py", bytes);
  for (uint32_t byte = static_cast<uint32_t>(bytes.size()); byte-- > text.contentStart();) {
    const uint32_t line = text.lineOf(byte);
    const uint32_t start = text.lineStart(line);
    EXPECT_EQ(text.columnOf(line, byte),
              countCodePoints(std::string_view(bytes).substr(start, byte - start)))
        << "byte " << byte;
  }
}

} // namespace
} // namespace gradlint
