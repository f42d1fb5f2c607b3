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

namespace {

// Leading blanks of a line, in bytes (tabs count one: indentation is compared only with that of
// the same class body, where Python requires consistency anyway).
uint32_t indentOf(std::string_view text, size_t lineStart) {
  size_t at = lineStart;
  while (at < text.size() && (text[at] == ' ' || text[at] == '\t' || text[at] == '\f')) ++at;
  return static_cast<uint32_t>(at - lineStart);
}

bool blankOrComment(std::string_view text, size_t at) {
  return at >= text.size() || text[at] == '\n' || text[at] == '\r' || text[at] == '#';
}

bool continuesCompound(std::string_view rest) {
  return rest.starts_with("except") || rest.starts_with("else") || rest.starts_with("elif") ||
         rest.starts_with("finally");
}

// An f-string's braces hold code: only other strings are inert. Looks at the prefix letters.
bool formatted(std::string_view text, size_t quote) {
  for (size_t back = 1; back <= 2 && back <= quote; ++back) {
    const char c = text[quote - back];
    if (c == 'f' || c == 'F') return true;
    if (!std::isalpha(static_cast<unsigned char>(c))) break;
  }
  return false;
}

} // namespace

ChunkLayout scanChunks(std::string_view text, uint32_t contentStart, bool splitClasses) {
  ChunkLayout layout;
  std::vector<SourceChunk>& chunks = layout.chunks;
  const size_t size = text.size();
  int brackets = 0;
  char stringQuote = 0; // the quote character of an open string, or 0
  bool tripleQuoted = false;
  bool inertString = false; // the open string is not an f-string
  size_t stringStart = 0;
  bool continued = false; // the previous line ended with a backslash
  bool previousDecorator = false;
  // The top-level class being split: its header chunk, and its body's indentation once known.
  int32_t classHeader = -1;
  uint32_t bodyIndent = 0;
  bool memberDecorator = false;
  auto closeClass = [&] {
    if (classHeader >= 0 && chunks.size() > static_cast<size_t>(classHeader) + 1) {
      chunks[static_cast<size_t>(classHeader)].membersEnd = static_cast<uint32_t>(chunks.size());
    }
    classHeader = -1;
  };
  auto startChunk = [&](size_t at, bool definition) {
    if (!chunks.empty()) chunks.back().end = static_cast<uint32_t>(at);
    chunks.push_back({static_cast<uint32_t>(at), 0, definition});
  };
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
    const bool statementStart = stringQuote == 0 && brackets == 0 && !continued;
    if (statementStart && lineStart < size) {
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
        const bool continuesStatement = !definition && !chunks.empty() &&
                                        !chunks.back().definition && continuesCompound(rest);
        if (!continuesDefinition && !continuesStatement) {
          closeClass();
          startChunk(lineStart, definition);
        }
        if (splitClasses && rest.starts_with("class ") && classHeader < 0) {
          classHeader = static_cast<int32_t>(chunks.size() - 1);
          bodyIndent = 0;
          memberDecorator = false;
        }
        previousDecorator = decorator;
      } else if (classHeader >= 0 && !blankOrComment(text, lineStart + indentOf(text, lineStart))) {
        // An indented statement of the class being split: a member starts at the body's
        // indentation (the first statement's), with its decorators.
        const uint32_t indent = indentOf(text, lineStart);
        if (bodyIndent == 0) bodyIndent = indent;
        if (indent == bodyIndent) {
          const std::string_view rest = text.substr(lineStart + indent, 16);
          const bool definition = startsDefinition(rest);
          const bool continuesMember =
              (definition && memberDecorator) ||
              (!definition && chunks.back().header >= 0 && !chunks.back().definition &&
               continuesCompound(rest));
          if (!continuesMember) {
            startChunk(lineStart, definition);
            chunks.back().header = classHeader;
          }
          memberDecorator = rest.starts_with("@");
        }
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
            if (inertString) layout.inert.push_back({static_cast<uint32_t>(stringStart),
                                                     static_cast<uint32_t>(at + 1)});
          } else if (at + 2 < size && text[at + 1] == c && text[at + 2] == c) {
            stringQuote = 0;
            at += 3;
            if (inertString) layout.inert.push_back({static_cast<uint32_t>(stringStart),
                                                     static_cast<uint32_t>(at)});
            continue;
          }
        }
        ++at;
        continue;
      }
      if (c == '#') { // comment: skip to the end of the line
        const size_t comment = at;
        while (at < size && text[at] != '\n' && text[at] != '\r') ++at;
        layout.inert.push_back({static_cast<uint32_t>(comment), static_cast<uint32_t>(at)});
        continue;
      }
      if (c == '"' || c == '\'') {
        stringQuote = c;
        stringStart = at;
        inertString = !formatted(text, at);
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
  closeClass();
  if (!chunks.empty()) chunks.back().end = static_cast<uint32_t>(size);
  for (SourceChunk& chunk : chunks) {
    chunk.imports = !chunk.definition && chunk.header < 0 &&
                    text.substr(chunk.start, chunk.end - chunk.start).find("import") !=
                        std::string_view::npos;
  }
  // Leading comments (a `# gradlint: noqa` file directive, the shebang) are a chunk of their
  // own that is always parsed, like imports: cheap, and suppressions live there.
  const uint32_t firstStatement = chunks.empty() ? static_cast<uint32_t>(size) : chunks.front().start;
  if (firstStatement > contentStart) {
    chunks.insert(chunks.begin(), SourceChunk{contentStart, firstStatement, false, true});
    for (SourceChunk& chunk : chunks) {
      if (chunk.header >= 0) ++chunk.header;
      if (chunk.membersEnd > 0) ++chunk.membersEnd;
    }
  }
  return layout;
}

std::vector<SourceChunk> splitTopLevel(std::string_view text, uint32_t contentStart) {
  return scanChunks(text, contentStart, false).chunks;
}

namespace {

// A table, not std::isalnum: this runs over every byte of every candidate file.
const std::array<bool, 256> kWordChar = [] {
  std::array<bool, 256> table{};
  for (int c = 0; c < 256; ++c) table[c] = std::isalnum(c) || c == '_';
  return table;
}();

bool isWordChar(char c) { return kWordChar[static_cast<unsigned char>(c)]; }

} // namespace

std::vector<uint32_t> findMentions(std::string_view text, const std::vector<std::string>& needles,
                                   Match match) {
  std::vector<uint32_t> mentions;
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
  auto wholeWord = [&](size_t start, size_t length) {
    return (start == 0 || !isWordChar(text[start - 1])) &&
           (start + length >= text.size() || !isWordChar(text[start + length]));
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
    for (size_t at = text.find(needle); at != std::string_view::npos;
         at = text.find(needle, at + needle.size())) {
      if ((match == Match::Marker || match == Match::WordMarker) && definesName(at)) continue;
      if (match == Match::WordMarker && !wholeWord(at, needle.size())) continue;
      mentions.push_back(static_cast<uint32_t>(at));
    }
  }
  if (!words.empty()) {
    // Many names (summarised functions): one pass over the identifiers of the text.
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
        mentions.push_back(static_cast<uint32_t>(start));
      }
    }
  }
  return mentions;
}

bool chooseMentioned(const ChunkLayout& layout, const std::vector<uint32_t>& mentions,
                     std::vector<bool>& chosen, ClassScope scope) {
  const std::vector<SourceChunk>& chunks = layout.chunks;
  const std::vector<ByteRange>& inert = layout.inert;
  bool marked = false;
  auto mark = [&](size_t index) {
    if (!chosen[index]) {
      chosen[index] = true;
      marked = true;
    }
  };
  auto markClass = [&](size_t header) {
    for (size_t i = header; i < chunks[header].membersEnd; ++i) mark(i);
  };
  for (uint32_t at : mentions) {
    // Both lists are sorted and mentions are few: a binary search each.
    auto after = std::upper_bound(inert.begin(), inert.end(), at,
                                  [](uint32_t byte, const ByteRange& r) { return byte < r.start; });
    if (after != inert.begin() && at < std::prev(after)->end) continue;
    auto chunk = std::upper_bound(chunks.begin(), chunks.end(), at,
                                  [](uint32_t byte, const SourceChunk& c) { return byte < c.start; });
    if (chunk == chunks.begin()) continue; // before the first statement: a blank line
    const size_t index = static_cast<size_t>(std::prev(chunk) - chunks.begin());
    const SourceChunk& found = chunks[index];
    if (found.membersEnd > 0) {
      markClass(index); // the header: decorators or bases apply to every member
    } else if (found.header >= 0) {
      if (scope == ClassScope::WholeClass) {
        markClass(static_cast<size_t>(found.header));
      } else {
        mark(index);
        mark(static_cast<size_t>(found.header));
      }
    } else {
      mark(index);
    }
  }
  return marked;
}

bool chooseChunks(std::string_view text, const ChunkLayout& layout,
                  const std::vector<std::string>& needles, std::vector<bool>& chosen, Match match,
                  ClassScope scope) {
  return chooseMentioned(layout, findMentions(text, needles, match), chosen, scope);
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
