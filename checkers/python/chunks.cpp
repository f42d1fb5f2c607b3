#include "checkers/python/chunks.h"

namespace gradlint::python {
namespace {

bool startsDefinition(std::string_view line) {
  return line.starts_with("def ") || line.starts_with("async def ") ||
         line.starts_with("class ") || line.starts_with("@");
}

} // namespace

std::vector<SourceChunk> splitTopLevel(std::string_view text, uint32_t contentStart) {
  std::vector<SourceChunk> chunks;
  const size_t size = text.size();
  int brackets = 0;
  char stringQuote = 0;   // the quote character of an open string, or 0
  bool tripleQuoted = false;
  bool continued = false; // the previous line ended with a backslash
  bool previousDecorator = false;
  size_t at = contentStart;
  while (at < size) {
    const size_t lineStart = at;
    // Decide whether this line starts a chunk, before scanning its characters. `def` and
    // `class` cannot occur inside brackets, so at column 0 they end an unclosed bracket (a
    // syntax error above must not swallow the definitions below it).
    if (stringQuote == 0 && brackets > 0 && lineStart < size && text[lineStart] != '@' &&
        startsDefinition(text.substr(lineStart, 16))) {
      brackets = 0;
      continued = false;
    }
    const bool atTopLevel = stringQuote == 0 && brackets == 0 && !continued;
    if (atTopLevel && lineStart < size) {
      const char first = text[lineStart];
      const bool blank = first == '\n' || first == '\r' || first == '#' || first == ' ' ||
                         first == '\t' || first == '\f';
      if (!blank) {
        const std::string_view rest = text.substr(lineStart, 16);
        const bool definition = startsDefinition(rest);
        const bool decorator = first == '@';
        // A decorator's definition (or next decorator) belongs to the decorator's chunk.
        const bool continuesDefinition = definition && previousDecorator;
        const bool continuesModuleCode = !definition && !chunks.empty() && !chunks.back().definition;
        if (!continuesDefinition && !continuesModuleCode) {
          if (!chunks.empty()) chunks.back().end = static_cast<uint32_t>(lineStart);
          chunks.push_back({static_cast<uint32_t>(lineStart), 0, definition});
        }
        previousDecorator = decorator;
      }
    }
    // Scan the line's characters for strings, comments, brackets and continuations.
    continued = false;
    while (at < size) {
      const char c = text[at];
      if (c == '\n' || (c == '\r' && (at + 1 >= size || text[at + 1] != '\n'))) {
        ++at;
        break;
      }
      if (c == '\r') { // \r\n
        at += 2;
        break;
      }
      if (stringQuote != 0) {
        if (c == '\\') {
          at += 2;
          continue;
        }
        if (c == stringQuote) {
          if (!tripleQuoted) {
            stringQuote = 0;
          } else if (at + 2 < size && text[at + 1] == c && text[at + 2] == c) {
            stringQuote = 0;
            at += 3;
            continue;
          }
        }
        ++at;
        continue;
      }
      if (c == '#') { // comment: skip to the end of the line
        while (at < size && text[at] != '\n' && text[at] != '\r') ++at;
        continue;
      }
      if (c == '"' || c == '\'') {
        stringQuote = c;
        tripleQuoted = at + 2 < size && text[at + 1] == c && text[at + 2] == c;
        at += tripleQuoted ? 3 : 1;
        continue;
      }
      if (c == '(' || c == '[' || c == '{') ++brackets;
      if ((c == ')' || c == ']' || c == '}') && brackets > 0) --brackets;
      if (c == '\\' && at + 1 < size && (text[at + 1] == '\n' || text[at + 1] == '\r')) {
        continued = true;
      }
      ++at;
    }
    // An unterminated single-quoted string ends at the end of its line (a syntax error that
    // must not swallow the rest of the file).
    if (stringQuote != 0 && !tripleQuoted && !continued) stringQuote = 0;
  }
  if (!chunks.empty()) chunks.back().end = static_cast<uint32_t>(size);
  return chunks;
}

std::vector<ByteRange> relevantRanges(std::string_view text, const std::vector<SourceChunk>& chunks,
                                      const std::vector<std::string>& needles) {
  std::vector<bool> chosen(chunks.size(), false);
  bool anyMention = false;
  for (const std::string& needle : needles) {
    // Each occurrence marks its chunk (chunks are sorted, so a moving index suffices per
    // needle); the file is scanned once per needle with a fast substring search.
    size_t chunk = 0;
    for (size_t at = text.find(needle); at != std::string_view::npos;
         at = text.find(needle, at + needle.size())) {
      while (chunk < chunks.size() && chunks[chunk].end <= at) ++chunk;
      if (chunk == chunks.size()) break;
      if (at >= chunks[chunk].start) {
        chosen[chunk] = true;
        anyMention = true;
      }
    }
  }
  std::vector<ByteRange> ranges;
  if (!anyMention) return ranges;
  for (size_t i = 0; i < chunks.size(); ++i) {
    if (!chosen[i] && chunks[i].definition) continue;
    if (!ranges.empty() && ranges.back().end == chunks[i].start) {
      ranges.back().end = chunks[i].end;
    } else {
      ranges.push_back({chunks[i].start, chunks[i].end});
    }
  }
  return ranges;
}

} // namespace gradlint::python
