// The language server's pieces that need no process: the framing reader (as a fuzzer drives
// it, from memory), UTF-16 positions and text sync, noqa comment positions, and the whole
// server over in-memory streams.
#include "tool/lsp/documents.h"
#include "tool/lsp/jsonrpc.h"
#include "tool/lsp/noqa_comment.h"
#include "tool/lsp/server.h"
#include "tool/lsp/uri.h"

#include <gtest/gtest.h>

#include <sstream>

namespace gradlint::lsp {
namespace {

std::string framed(const std::string& body) {
  return "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
}

TEST(MessageReader, ReadsConsecutiveMessagesThenEndOfInput) {
  std::istringstream in(framed("{\"a\":1}") + "Content-Type: x\r\n" + framed("[]"));
  MessageReader reader(in);
  ReadResult first = reader.next();
  ASSERT_EQ(first.status, ReadStatus::Message);
  EXPECT_EQ(first.body, "{\"a\":1}");
  ReadResult second = reader.next();
  ASSERT_EQ(second.status, ReadStatus::Message);
  EXPECT_EQ(second.body, "[]");
  EXPECT_EQ(reader.next().status, ReadStatus::EndOfInput);
}

TEST(MessageReader, AcceptsBareNewlinesAndAnyCase) {
  std::istringstream in("content-length:  2\n\n{}");
  MessageReader reader(in);
  ReadResult result = reader.next();
  ASSERT_EQ(result.status, ReadStatus::Message);
  EXPECT_EQ(result.body, "{}");
}

TEST(MessageReader, ReportsBadHeadersAndKeepsGoing) {
  std::istringstream in("X-Other: 1\r\n\r\nContent-Length: -3\r\n\r\n" + framed("{}"));
  MessageReader reader(in);
  EXPECT_EQ(reader.next().status, ReadStatus::BadHeader);
  EXPECT_EQ(reader.next().status, ReadStatus::BadHeader);
  EXPECT_EQ(reader.next().status, ReadStatus::Message);
}

TEST(MessageReader, FindsAHeaderGluedToTheRestOfAShortBody) {
  // Content-Length 2 for `{}xx`: the next header line starts with the leftover `xx`.
  std::istringstream in("Content-Length: 2\r\n\r\n{}xx" + framed("[1]"));
  MessageReader reader(in);
  EXPECT_EQ(reader.next().body, "{}");
  ReadResult next = reader.next();
  ASSERT_EQ(next.status, ReadStatus::Message);
  EXPECT_EQ(next.body, "[1]");
}

TEST(MessageReader, SkipsMessagesOverTheCap) {
  std::istringstream in(framed(std::string(100, 'x')) + framed("{}"));
  MessageReader reader(in, 50);
  ReadResult skipped = reader.next();
  EXPECT_EQ(skipped.status, ReadStatus::TooLarge);
  EXPECT_NE(skipped.error.find("100 bytes"), std::string::npos);
  EXPECT_EQ(reader.next().body, "{}");
}

TEST(MessageReader, AHugeLengthNeitherAllocatesNorWraps) {
  std::istringstream in("Content-Length: 99999999999999999999999999\r\n\r\n{}");
  MessageReader reader(in);
  EXPECT_EQ(reader.next().status, ReadStatus::TooLarge);
  EXPECT_EQ(reader.next().status, ReadStatus::EndOfInput);
}

TEST(MessageReader, ReportsTruncation) {
  std::istringstream body("Content-Length: 10\r\n\r\n{}");
  EXPECT_EQ(MessageReader(body).next().status, ReadStatus::Truncated);
  std::istringstream header("Content-Length: 10\r\n");
  EXPECT_EQ(MessageReader(header).next().status, ReadStatus::Truncated);
}

TEST(TextDocument, PositionsCountUtf16CodeUnits) {
  // "é" is 2 bytes and 1 unit; "😀" is 4 bytes and 2 units (a surrogate pair).
  const TextDocument document("file:///a.py", "/a.py", 1, "x\ns = \"é😀\"; y\n");
  const uint32_t y = static_cast<uint32_t>(document.text().find('y'));
  EXPECT_EQ(document.positionOf(y).line, 1u);
  EXPECT_EQ(document.positionOf(y).character, 11u); // 6 + 1 + 2 + 2
  EXPECT_EQ(document.offsetOf(Position{1, 11}), y);
  // Inside the surrogate pair: the character's start. Past the line's end: the end.
  EXPECT_EQ(document.offsetOf(Position{1, 7}), document.text().find("😀"));
  EXPECT_EQ(document.offsetOf(Position{0, 40}), 1u);
  EXPECT_EQ(document.offsetOf(Position{9, 0}), document.text().size());
}

TEST(TextDocument, CrLfAndCrAreLineBreaks) {
  const TextDocument document("u", "", 1, "a\r\nb\rc");
  EXPECT_EQ(document.lineCount(), 3u);
  EXPECT_EQ(document.lineText(0), "a");
  EXPECT_EQ(document.positionOf(2).line, 0u); // the \n of \r\n stays on its line
  EXPECT_EQ(document.positionOf(5).line, 2u);
}

TEST(TextDocument, AppliesIncrementalAndFullChanges) {
  TextDocument document("u", "", 1, "héllo\nworld\n");
  document.applyChange(Range{{0, 1}, {0, 2}}, "e");
  EXPECT_EQ(document.text(), "hello\nworld\n");
  document.applyChange(Range{{1, 0}, {2, 0}}, "");
  EXPECT_EQ(document.text(), "hello\n");
  document.applyChange(std::nullopt, "new");
  EXPECT_EQ(document.text(), "new");
}

TEST(NoqaComment, FindsTheCommentOutsideStrings) {
  EXPECT_EQ(findComment("x = '#' + \"#\"  # c").start, 15u);
  EXPECT_EQ(findComment("x = '''#''' # c").start, 12u);
  EXPECT_EQ(findComment("x = 1").start, std::string_view::npos);
  EXPECT_TRUE(findComment("x = '''open").continues);
  EXPECT_TRUE(findComment("x = 1 + \\").continues);
  EXPECT_FALSE(findComment("x = 1").continues);
}

TEST(NoqaComment, FindsCodesAndWhereToAddOne) {
  const std::string_view line = "f()  # noqa: gl101,GL103 trailing";
  const NoqaDirective noqa = findNoqa(line, findComment(line).start);
  ASSERT_TRUE(noqa.found);
  EXPECT_FALSE(noqa.bare);
  ASSERT_EQ(noqa.codes.size(), 2u);
  EXPECT_EQ(noqa.codes[0].code, "GL101");
  EXPECT_EQ(line.substr(noqa.codes[1].start, 5), "GL103");
  EXPECT_EQ(noqa.listEnd, line.find(" trailing"));
  EXPECT_TRUE(findNoqa("f()  # NOQA", 5).bare);
  EXPECT_FALSE(findNoqa("f()  # see the noqa docs", 5).found);
}

TEST(Uri, RoundTripsPathsWithSpecialCharacters) {
  const std::string path = "/tmp/a b/é#.py";
  EXPECT_EQ(uriFromPath(path), "file:///tmp/a%20b/%C3%A9%23.py");
  EXPECT_EQ(pathFromUri(uriFromPath(path)), path);
  EXPECT_EQ(pathFromUri("untitled:Untitled-1"), "");
  EXPECT_EQ(pathFromUri("file://otherhost/x.py"), "");
}

std::string runServer(const std::string& input, int& exitCode) {
  std::istringstream in(input);
  std::ostringstream out;
  ServerOptions options;
  options.debounce = std::chrono::milliseconds(0);
  exitCode = runLanguageServer(in, out, options);
  return out.str();
}

TEST(LanguageServer, RunsInProcessOverStreams) {
  int exitCode = -1;
  const std::string out = runServer(
      framed(R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"capabilities":{}}})") +
          framed(R"({"jsonrpc":"2.0","id":2,"method":"shutdown"})") +
          framed(R"({"jsonrpc":"2.0","method":"exit"})"),
      exitCode);
  EXPECT_EQ(exitCode, 0);
  EXPECT_NE(out.find("\"hoverProvider\":true"), std::string::npos);
  EXPECT_NE(out.find("{\"id\":2,\"jsonrpc\":\"2.0\",\"result\":null}"), std::string::npos);
}

TEST(LanguageServer, ReturnsAtTheEndOfAnyInput) {
  int exitCode = -1;
  const std::string out =
      runServer(framed("{") + "garbage\r\n\r\n" + framed(std::string(3000, '[')), exitCode);
  EXPECT_EQ(exitCode, 1);
  EXPECT_NE(out.find("-32700"), std::string::npos);
  EXPECT_NE(out.find("nests deeper"), std::string::npos);
}

} // namespace
} // namespace gradlint::lsp
