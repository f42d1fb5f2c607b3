// The open documents' text, kept in sync with the editor (full and incremental changes), and
// the mapping between byte offsets (what gradlint reports) and LSP positions (line, UTF-16
// code unit), which differ on every line with non-ASCII text.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gradlint::lsp {

struct Position {
  uint32_t line = 0;
  uint32_t character = 0; // UTF-16 code units, as LSP 3.17 requires by default
};

struct Range {
  Position start;
  Position end;
};

class TextDocument {
public:
  TextDocument(std::string uri, std::string path, int64_t version, std::string text);

  const std::string& uri() const { return uri_; }
  // The file system path the document stands for ("" when the URI is not a file:// one).
  const std::string& path() const { return path_; }
  int64_t version() const { return version_; }
  const std::string& text() const { return text_; }

  // Replaces `range` (the whole text when unset) with `newText`. A range past the end is
  // clamped to it, as editors expect.
  void applyChange(const std::optional<Range>& range, std::string_view newText);
  void setVersion(int64_t version) { version_ = version; }

  Position positionOf(uint32_t byte) const;
  uint32_t offsetOf(Position position) const;
  size_t lineCount() const { return lineStarts_.size(); }
  // The line's text without its terminator.
  std::string_view lineText(uint32_t line) const;

private:
  void indexLines();

  std::string uri_;
  std::string path_;
  int64_t version_ = 0;
  std::string text_;
  std::vector<uint32_t> lineStarts_; // LSP line breaks: \n, \r\n and \r
};

// UTF-16 code units in UTF-8 text; an invalid byte counts as one unit.
uint32_t utf16Length(std::string_view text);
// The byte offset in `text` (one line) of the given UTF-16 column, clamped to the text's end;
// a column inside a character maps to that character's start.
uint32_t byteOfUtf16Column(std::string_view text, uint32_t column);

} // namespace gradlint::lsp
