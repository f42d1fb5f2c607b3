#include "tool/lsp/documents.h"

#include <algorithm>

namespace gradlint::lsp {
namespace {

// The length of the UTF-8 sequence at text[i] when it is well formed, else 1 (the byte alone).
size_t sequenceLength(std::string_view text, size_t i) {
  const auto lead = static_cast<unsigned char>(text[i]);
  size_t length = 1;
  if (lead >= 0xF0 && lead <= 0xF4) {
    length = 4;
  } else if (lead >= 0xE0) {
    length = 3;
  } else if (lead >= 0xC2 && lead < 0xE0) {
    length = 2;
  }
  if (length == 1 || i + length > text.size()) return 1;
  for (size_t k = 1; k < length; ++k) {
    if ((static_cast<unsigned char>(text[i + k]) & 0xC0) != 0x80) return 1;
  }
  return length;
}

} // namespace

uint32_t utf16Length(std::string_view text) {
  uint32_t units = 0;
  for (size_t i = 0; i < text.size();) {
    const size_t length = sequenceLength(text, i);
    units += length == 4 ? 2 : 1; // astral characters are a surrogate pair
    i += length;
  }
  return units;
}

uint32_t byteOfUtf16Column(std::string_view text, uint32_t column) {
  uint32_t units = 0;
  size_t i = 0;
  while (i < text.size()) {
    const size_t length = sequenceLength(text, i);
    const uint32_t width = length == 4 ? 2 : 1;
    if (units + width > column) break;
    units += width;
    i += length;
  }
  return static_cast<uint32_t>(i);
}

TextDocument::TextDocument(std::string uri, std::string path, int64_t version, std::string text)
    : uri_(std::move(uri)), path_(std::move(path)), version_(version), text_(std::move(text)) {
  indexLines();
}

void TextDocument::indexLines() {
  lineStarts_.assign(1, 0);
  for (size_t i = 0; i < text_.size(); ++i) {
    if (text_[i] == '\r' && i + 1 < text_.size() && text_[i + 1] == '\n') continue;
    if (text_[i] == '\n' || text_[i] == '\r') lineStarts_.push_back(static_cast<uint32_t>(i + 1));
  }
}

std::string_view TextDocument::lineText(uint32_t line) const {
  if (line >= lineStarts_.size()) return {};
  const size_t start = lineStarts_[line];
  size_t end = line + 1 < lineStarts_.size() ? lineStarts_[line + 1] : text_.size();
  while (end > start && (text_[end - 1] == '\n' || text_[end - 1] == '\r')) --end;
  return std::string_view(text_).substr(start, end - start);
}

void TextDocument::applyChange(const std::optional<Range>& range, std::string_view newText) {
  if (!range) {
    text_.assign(newText);
  } else {
    uint32_t start = offsetOf(range->start);
    uint32_t end = offsetOf(range->end);
    if (end < start) std::swap(start, end);
    text_.replace(start, end - start, newText);
  }
  indexLines();
}

Position TextDocument::positionOf(uint32_t byte) const {
  byte = std::min<uint32_t>(byte, static_cast<uint32_t>(text_.size()));
  const auto next = std::upper_bound(lineStarts_.begin(), lineStarts_.end(), byte);
  const auto line = static_cast<uint32_t>(next - lineStarts_.begin() - 1);
  const uint32_t start = lineStarts_[line];
  // Count up to `byte` but no further than the line's text (an offset inside \r\n stays on it).
  const std::string_view text = lineText(line);
  const size_t length = std::min<size_t>(byte - start, text.size());
  return Position{line, utf16Length(text.substr(0, length))};
}

uint32_t TextDocument::offsetOf(Position position) const {
  if (position.line >= lineStarts_.size()) return static_cast<uint32_t>(text_.size());
  const uint32_t start = lineStarts_[position.line];
  return start + byteOfUtf16Column(lineText(position.line), position.character);
}

} // namespace gradlint::lsp
