// A file's bytes with a line index, and the byte -> character-column mapping used for every
// position gradlint reports.
#pragma once

#include "checkers/ir/grad_ir.h"

#include <string>
#include <string_view>
#include <vector>

namespace gradlint {

class SourceText {
public:
  SourceText(std::string path, std::string bytes);

  const std::string& path() const { return path_; }
  const std::string& bytes() const { return bytes_; }
  // Where parsing starts: past a UTF-8 byte order mark, which Python ignores.
  uint32_t contentStart() const { return contentStart_; }
  size_t lineCount() const { return lineStarts_.size(); }
  uint32_t lineOf(uint32_t byte) const;
  uint32_t lineStart(uint32_t line) const { return lineStarts_[line]; }
  // The line's text without its terminator.
  std::string_view lineText(uint32_t line) const;
  // 0-based column in code points, in time bounded by a constant (long single-line files must
  // not make column lookups quadratic).
  uint32_t columnOf(uint32_t line, uint32_t byte) const;
  // A range from byte offsets.
  ir::SourceRange range(uint32_t startByte, uint32_t endByte) const;

private:
  std::string path_;
  std::string bytes_;
  uint32_t contentStart_ = 0;
  std::vector<uint32_t> lineStarts_;
  static constexpr uint32_t kColumnBlock = 256;
  std::vector<uint32_t> codePointsBeforeBlock_; // code points before byte block * kColumnBlock

  uint32_t codePointsBefore(uint32_t byte) const;
};

// Counts code points in UTF-8 text; invalid bytes count one each.
uint32_t countCodePoints(std::string_view text);

} // namespace gradlint
