// A file's bytes with a line index, and the byte -> character-column mapping used for every
// position gradlint reports. The index is built on first use: most files of a run are only
// searched, never parsed, and need no positions.
#pragma once

#include "checkers/ir/grad_ir.h"
#include "checkers/python/notebook.h"

#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

namespace gradlint {

class SourceText {
public:
  SourceText(std::string path, std::string bytes);
  // A notebook: the text is its cells joined into one module (notebook.h).
  SourceText(std::string path, std::shared_ptr<const Notebook> notebook);
  SourceText(const SourceText&) = delete;
  SourceText& operator=(const SourceText&) = delete;

  const std::string& path() const { return path_; }
  const std::string& bytes() const { return bytes_; }
  // Where parsing starts: past a UTF-8 byte order mark, which Python ignores.
  uint32_t contentStart() const { return contentStart_; }
  size_t lineCount() const { return lineStarts().size(); }
  uint32_t lineOf(uint32_t byte) const;
  uint32_t lineStart(uint32_t line) const { return lineStarts()[line]; }
  // The line's text without its terminator.
  std::string_view lineText(uint32_t line) const;
  // 0-based column in code points, in time bounded by a constant (long single-line files must
  // not make column lookups quadratic).
  uint32_t columnOf(uint32_t line, uint32_t byte) const;
  // A range from byte offsets.
  ir::SourceRange range(uint32_t startByte, uint32_t endByte) const;

  // The notebook behind the text; null for a plain file.
  const Notebook* notebook() const { return notebook_.get(); }
  // Where a line of the text is shown to users: in a notebook its cell (1-based) and the 0-based
  // line inside it; elsewhere cell 0 and the line itself.
  struct ShownLine {
    uint32_t cell = 0;
    uint32_t line = 0;
  };
  ShownLine shownLine(uint32_t line) const;
  // A range as users read it: in a notebook with lines relative to the cell it starts in.
  struct ShownRange {
    uint32_t cell = 0; // 1-based; 0 outside notebooks
    ir::SourceRange range;
  };
  ShownRange shown(const ir::SourceRange& range) const;
  // In a notebook, where the range starts and ends in the .ipynb file's own lines (its JSON),
  // for annotations that point into the file; elsewhere the range itself.
  ir::SourceRange inFile(const ir::SourceRange& range) const;

private:
  std::string path_;
  std::string bytes_;
  std::shared_ptr<const Notebook> notebook_;
  uint32_t contentStart_ = 0;
  static constexpr uint32_t kColumnBlock = 256;
  // The index, built once (by whichever thread asks first).
  mutable std::once_flag indexed_;
  mutable std::vector<uint32_t> lineStarts_;
  mutable std::vector<uint32_t> codePointsBeforeBlock_; // before byte block * kColumnBlock

  const std::vector<uint32_t>& lineStarts() const;
  void buildIndex() const;
  uint32_t codePointsBefore(uint32_t byte) const;
};

// Counts code points in UTF-8 text; invalid bytes count one each.
uint32_t countCodePoints(std::string_view text);

} // namespace gradlint
