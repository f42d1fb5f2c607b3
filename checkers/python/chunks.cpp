#include "checkers/python/chunks.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <unordered_set>

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
        // `except`/`else`/`elif`/`finally` at column 0 continue a module-level compound
        // statement (try/if/for/while) and stay in its chunk.
        const bool continuesStatement =
            !definition && !chunks.empty() && !chunks.back().definition &&
            (rest.starts_with("except") || rest.starts_with("else") ||
             rest.starts_with("elif") || rest.starts_with("finally"));
        if (!continuesDefinition && !continuesStatement) {
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
  for (SourceChunk& chunk : chunks) {
    chunk.imports = !chunk.definition &&
                    text.substr(chunk.start, chunk.end - chunk.start).find("import") !=
                        std::string_view::npos;
  }
  // Leading comments (a `# gradlint: noqa` file directive, the shebang) are a chunk of their
  // own that is always parsed, like imports: cheap, and suppressions live there.
  const uint32_t firstStatement = chunks.empty() ? static_cast<uint32_t>(size) : chunks.front().start;
  if (firstStatement > contentStart) {
    chunks.insert(chunks.begin(), SourceChunk{contentStart, firstStatement, false, true});
  }
  return chunks;
}

bool chooseChunks(std::string_view text, const std::vector<SourceChunk>& chunks,
                  const std::vector<std::string>& needles, std::vector<bool>& chosen,
                  Match match) {
  bool marked = false;
  auto mark = [&](size_t at, size_t& chunk) {
    while (chunk < chunks.size() && chunks[chunk].end <= at) ++chunk;
    if (chunk < chunks.size() && at >= chunks[chunk].start && !chosen[chunk]) {
      chosen[chunk] = true;
      marked = true;
    }
  };
  // A table, not std::isalnum: this runs over every byte of every candidate file.
  static const auto kWordChar = [] {
    std::array<bool, 256> table{};
    for (int c = 0; c < 256; ++c) table[c] = std::isalnum(c) || c == '_';
    return table;
  }();
  auto isWordChar = [](char c) { return kWordChar[static_cast<unsigned char>(c)]; };
  // Occurrences of a name that no call resolves to a function of that name: `def NAME` (`def`,
  // as a word, then blanks), and an attribute of a call or subscript (`super().NAME`), whose
  // root is not a name an import or definition binds.
  auto definesName = [&](size_t start) {
    size_t at = start;
    while (at > 0 && (text[at - 1] == ' ' || text[at - 1] == '\t')) --at;
    return at < start && at >= 3 && text.substr(at - 3, 3) == "def" &&
           (at == 3 || !isWordChar(text[at - 4]));
  };
  auto cannotCall = [&](size_t start) {
    return (start >= 2 && text[start - 1] == '.' &&
            (text[start - 2] == ')' || text[start - 2] == ']')) ||
           definesName(start);
  };
  std::unordered_set<std::string_view> words;
  size_t shortest = SIZE_MAX;
  size_t longest = 0;
  for (const std::string& needle : needles) {
    const bool word = !needle.empty() && std::all_of(needle.begin(), needle.end(), isWordChar);
    if (word && (match == Match::Word || match == Match::Use)) {
      words.insert(needle);
      shortest = std::min(shortest, needle.size());
      longest = std::max(longest, needle.size());
      continue;
    }
    // A handful of markers: a fast substring search each.
    size_t chunk = 0;
    for (size_t at = text.find(needle); at != std::string_view::npos;
         at = text.find(needle, at + needle.size())) {
      if (match == Match::Marker && definesName(at)) continue;
      mark(at, chunk);
    }
  }
  if (!words.empty()) {
    // Many names (summarised functions): one pass over the identifiers of the text.
    size_t chunk = 0;
    for (size_t at = 0; at < text.size();) {
      if (!isWordChar(text[at])) {
        ++at;
        continue;
      }
      const size_t start = at;
      while (at < text.size() && isWordChar(text[at])) ++at;
      const size_t length = at - start;
      if (length >= shortest && length <= longest && words.count(text.substr(start, length)) &&
          (match != Match::Use || !cannotCall(start))) {
        mark(start, chunk);
      }
    }
  }
  return marked;
}

std::vector<std::string> importAliases(std::string_view text, const std::vector<SourceChunk>& chunks,
                                       const std::vector<std::string>& needles) {
  std::vector<std::string> aliases;
  for (const SourceChunk& chunk : chunks) {
    if (!chunk.imports) continue;
    const std::string_view statement = text.substr(chunk.start, chunk.end - chunk.start);
    // Each `X as NAME` clause of the statement.
    for (size_t as = statement.find(" as "); as != std::string_view::npos;
         as = statement.find(" as ", as + 4)) {
      size_t clause = statement.find_last_of(",(\n", as);
      clause = clause == std::string_view::npos ? 0 : clause + 1;
      const std::string_view imported = statement.substr(clause, as - clause);
      const bool relevant = std::any_of(needles.begin(), needles.end(), [&](const std::string& n) {
        return imported.find(n) != std::string_view::npos;
      });
      if (!relevant) continue;
      size_t start = as + 4;
      while (start < statement.size() && statement[start] == ' ') ++start;
      size_t end = start;
      while (end < statement.size() &&
             (std::isalnum(static_cast<unsigned char>(statement[end])) || statement[end] == '_')) {
        ++end;
      }
      if (end > start) aliases.emplace_back(statement.substr(start, end - start));
    }
  }
  return aliases;
}

std::vector<ByteRange> chosenRanges(const std::vector<SourceChunk>& chunks,
                                    const std::vector<bool>& chosen) {
  std::vector<ByteRange> ranges;
  if (std::find(chosen.begin(), chosen.end(), true) == chosen.end()) return ranges;
  for (size_t i = 0; i < chunks.size(); ++i) {
    if (!chosen[i] && !chunks[i].imports) continue;
    if (!ranges.empty() && ranges.back().end == chunks[i].start) {
      ranges.back().end = chunks[i].end;
    } else {
      ranges.push_back({chunks[i].start, chunks[i].end});
    }
  }
  return ranges;
}

} // namespace gradlint::python
