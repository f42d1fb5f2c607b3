#include "checkers/python/source_text.h"

#include <algorithm>
#include <cstddef>
#include <cstring>

namespace gradlint {

uint32_t countCodePoints(std::string_view text) {
  // Every byte but UTF-8's continuation bytes (10xxxxxx) starts a code point. Eight bytes at a
  // time: a continuation byte has bit 7 set and bit 6 clear; the flags, one per byte, are summed
  // by a multiplication (the top byte of the product).
  constexpr uint64_t kLowBits = 0x0101010101010101ULL;
  size_t continuation = 0;
  size_t at = 0;
  for (; at + 8 <= text.size(); at += 8) {
    uint64_t word = 0;
    std::memcpy(&word, text.data() + at, sizeof word);
    const uint64_t flags = (word >> 7) & ~(word >> 6) & kLowBits;
    continuation += static_cast<size_t>((flags * kLowBits) >> 56);
  }
  for (; at < text.size(); ++at) {
    continuation += (static_cast<unsigned char>(text[at]) & 0xC0) == 0x80;
  }
  return static_cast<uint32_t>(text.size() - continuation);
}

SourceText::SourceText(std::string path, std::string bytes)
    : path_(std::move(path)), bytes_(std::move(bytes)) {
  if (bytes_.starts_with("\xEF\xBB\xBF")) contentStart_ = 3;
}

SourceText::SourceText(std::string path, std::shared_ptr<const Notebook> notebook)
    : path_(std::move(path)), bytes_(notebook->module()), notebook_(std::move(notebook)) {}

SourceText::ShownLine SourceText::shownLine(uint32_t line) const {
  const NotebookCell* cell = notebook_ ? notebook_->cellAtLine(line) : nullptr;
  if (cell == nullptr) return {0, line};
  return {cell->number, line - std::min(line, cell->firstLine)};
}

SourceText::ShownRange SourceText::shown(const ir::SourceRange& range) const {
  const NotebookCell* cell = notebook_ ? notebook_->cellAtLine(range.startLine) : nullptr;
  if (cell == nullptr) return {0, range};
  ShownRange out{cell->number, range};
  out.range.startLine -= std::min(range.startLine, cell->firstLine);
  out.range.endLine -= std::min(range.endLine, cell->firstLine);
  return out;
}

ir::SourceRange SourceText::inFile(const ir::SourceRange& range) const {
  const NotebookCell* cell = notebook_ ? notebook_->cellAtLine(range.startLine) : nullptr;
  if (cell == nullptr) return range;
  const ShownRange inCell = shown(range);
  ir::SourceRange out = range;
  const auto [startLine, startColumn] = notebook_->filePosition(*cell, inCell.range.startLine);
  const auto [endLine, endColumn] = notebook_->filePosition(*cell, inCell.range.endLine);
  out.startLine = startLine;
  out.startColumn = startColumn + inCell.range.startColumn;
  out.endLine = endLine;
  out.endColumn = endColumn + inCell.range.endColumn;
  return out;
}

const std::vector<uint32_t>& SourceText::lineStarts() const {
  std::call_once(indexed_, [this] { buildIndex(); });
  return lineStarts_;
}

void SourceText::buildIndex() const {
  lineStarts_.push_back(contentStart_);
  const size_t size = bytes_.size();
  for (size_t i = contentStart_; i < size; ++i) {
    const char c = bytes_[i];
    // Python ends lines at \n, \r\n and a lone \r.
    if (c == '\n' || (c == '\r' && (i + 1 >= size || bytes_[i + 1] != '\n'))) {
      lineStarts_.push_back(static_cast<uint32_t>(i + 1));
    }
  }
  // Code points before each block of kColumnBlock bytes: a column is then a difference of two
  // prefix counts, each finished within one block, whatever the order of the lookups.
  codePointsBeforeBlock_.reserve(size / kColumnBlock + 1);
  uint32_t count = 0;
  for (size_t block = 0; block <= size; block += kColumnBlock) {
    codePointsBeforeBlock_.push_back(count);
    count += countCodePoints(std::string_view(bytes_).substr(block, kColumnBlock));
  }
}

uint32_t SourceText::codePointsBefore(uint32_t byte) const {
  lineStarts(); // builds the index
  const uint32_t block = byte / kColumnBlock;
  const uint32_t blockStart = block * kColumnBlock;
  return codePointsBeforeBlock_[block] +
         countCodePoints(std::string_view(bytes_).substr(blockStart, byte - blockStart));
}

uint32_t SourceText::lineOf(uint32_t byte) const {
  const std::vector<uint32_t>& starts = lineStarts();
  auto it = std::upper_bound(starts.begin(), starts.end(), byte);
  return static_cast<uint32_t>(std::max<std::ptrdiff_t>(0, (it - starts.begin()) - 1));
}

std::string_view SourceText::lineText(uint32_t line) const {
  if (line >= lineStarts().size()) return {};
  const uint32_t start = lineStarts_[line];
  uint32_t end = line + 1 < lineStarts_.size() ? lineStarts_[line + 1]
                                               : static_cast<uint32_t>(bytes_.size());
  while (end > start && (bytes_[end - 1] == '\n' || bytes_[end - 1] == '\r')) --end;
  return std::string_view(bytes_).substr(start, end - start);
}

uint32_t SourceText::columnOf(uint32_t line, uint32_t byte) const {
  const uint32_t start = line < lineStarts().size() ? lineStarts_[line] : 0;
  byte = std::min<uint32_t>(std::max(byte, start), static_cast<uint32_t>(bytes_.size()));
  return codePointsBefore(byte) - codePointsBefore(start);
}

ir::SourceRange SourceText::range(uint32_t startByte, uint32_t endByte) const {
  ir::SourceRange r;
  r.startByte = startByte;
  r.endByte = std::max(startByte, endByte);
  r.startLine = lineOf(startByte);
  r.endLine = lineOf(r.endByte);
  r.startColumn = columnOf(r.startLine, startByte);
  r.endColumn = columnOf(r.endLine, r.endByte);
  return r;
}

} // namespace gradlint
