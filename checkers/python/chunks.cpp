#include "checkers/python/chunks.h"

#include "checkers/catalog/offload_api.h"
#include "checkers/python/plain_bytes.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cstring>
#include <optional>
#include <unordered_map>
#include <unordered_set>

namespace gradlint::python {
namespace {

// A table, not std::isalnum: this runs over every byte of every candidate file.
const std::array<bool, 256> kWordChar = [] {
  std::array<bool, 256> table{};
  for (int c = 0; c < 256; ++c) table[c] = std::isalnum(c) || c == '_';
  return table;
}();

bool startsDefinition(std::string_view line) {
  return line.starts_with("def ") || line.starts_with("async def ") ||
         line.starts_with("class ") || line.starts_with("@");
}

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

// `def NAME`: `def` as a word, then blanks, then the name at `start`.
bool definesName(std::string_view text, size_t start) {
  size_t at = start;
  while (at > 0 && (text[at - 1] == ' ' || text[at - 1] == '\t')) --at;
  return at < start && at >= 3 && text.substr(at - 3, 3) == "def" &&
         (at == 3 || !isWordChar(text[at - 4]));
}

uint16_t hashWindow(uint32_t window) { return static_cast<uint16_t>((window * 0x9E3779B1u) >> 16); }

uint32_t loadWindow(const char* at) {
  uint32_t window = 0;
  std::memcpy(&window, at, sizeof window);
  return window;
}

} // namespace

bool isWordChar(char c) { return kWordChar[static_cast<unsigned char>(c)]; }

std::string_view nameAt(std::string_view text, size_t at) {
  return nameAround(text, at, at, false);
}

std::string_view nameAround(std::string_view text, size_t start, size_t end, bool backwards) {
  // Empty views still point into `text`: callers take offsets from their ends.
  end = std::min(end, text.size());
  start = std::min(start, end);
  while (backwards && start > 0 && isWordChar(text[start - 1])) --start;
  while (end < text.size() && isWordChar(text[end])) ++end;
  return text.substr(start, end - start);
}

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
  // The classes being split, outermost first: each one's header chunk, the indentation of its
  // `class` line and of its body (0 until its first statement).
  struct OpenClass {
    int32_t header;
    uint32_t indent;
    uint32_t bodyIndent;
  };
  std::vector<OpenClass> classes;
  bool memberDecorator = false;
  auto closeClass = [&] {
    const auto header = static_cast<size_t>(classes.back().header);
    if (chunks.size() > header + 1) {
      chunks[header].membersEnd = static_cast<uint32_t>(chunks.size());
    }
    classes.pop_back();
  };
  auto closeClasses = [&] {
    while (!classes.empty()) closeClass();
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
          closeClasses();
          startChunk(lineStart, definition);
        }
        if (splitClasses && rest.starts_with("class ") && classes.empty()) {
          classes.push_back({static_cast<int32_t>(chunks.size() - 1), 0, 0});
          memberDecorator = false;
        }
        previousDecorator = decorator;
      } else if (!classes.empty() &&
                 !blankOrComment(text, lineStart + indentOf(text, lineStart))) {
        // An indented statement of a class being split: a member starts at the body's
        // indentation (the first statement's), with its decorators; a member class is split
        // in turn.
        const uint32_t indent = indentOf(text, lineStart);
        while (classes.size() > 1 && indent <= classes.back().indent) closeClass();
        OpenClass& open = classes.back();
        if (open.bodyIndent == 0 && indent > open.indent) open.bodyIndent = indent;
        if (indent == open.bodyIndent) {
          const std::string_view rest = text.substr(lineStart + indent, 16);
          const bool definition = startsDefinition(rest);
          const bool continuesMember =
              (definition && memberDecorator) ||
              (!definition && chunks.back().header >= 0 && !chunks.back().definition &&
               continuesCompound(rest));
          if (!continuesMember) {
            startChunk(lineStart, definition);
            chunks.back().header = open.header;
          }
          memberDecorator = rest.starts_with("@");
          if (rest.starts_with("class ")) {
            classes.push_back({static_cast<int32_t>(chunks.size() - 1), indent, 0});
          }
        }
      }
    }
    // Scan the line's characters for strings, comments, brackets and continuations.
    continued = false;
    while (at < size) {
      at = stringQuote != 0 ? skipPlainBytes<PlainRun::String>(text, at)
                            : skipPlainBytes<PlainRun::Code>(text, at);
      if (at >= size) break;
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
        at = skipPlainBytes<PlainRun::Comment>(text, at);
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
  closeClasses();
  if (!chunks.empty()) chunks.back().end = static_cast<uint32_t>(size);
  // A module statement imports when it holds the keyword, not when a comment or string says
  // "imported" (a 470 KB table of test cases would be parsed for its comments).
  auto inInert = [&](size_t offset) {
    auto after = std::upper_bound(layout.inert.begin(), layout.inert.end(), offset,
                                  [](size_t byte, const ByteRange& r) { return byte < r.start; });
    return after != layout.inert.begin() && offset < std::prev(after)->end;
  };
  for (SourceChunk& chunk : chunks) {
    if (chunk.definition || chunk.header >= 0) continue;
    const std::string_view statement = text.substr(chunk.start, chunk.end - chunk.start);
    for (size_t found = statement.find("import"); found != std::string_view::npos && !chunk.imports;
         found = statement.find("import", found + 6)) {
      // Only the end is checked: `x = 1import y` is still an import to tree-sitter.
      const bool word = found + 6 >= statement.size() || !isWordChar(statement[found + 6]);
      chunk.imports = word && !inInert(chunk.start + found);
    }
  }
  // Leading comments (a `# gradlint: noqa` file directive, the shebang) are a chunk of their
  // own that is always parsed, like imports: cheap, and suppressions live there.
  const uint32_t firstStatement =
      chunks.empty() ? static_cast<uint32_t>(size) : chunks.front().start;
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

// Occurrences of a name that no call resolves to a function of that name: `def NAME`, and an
// attribute of a call or subscript (`super().NAME`), whose root is not a name an import or
// definition binds.
bool mayCall(std::string_view text, size_t at) {
  const bool attributeOfCall =
      at >= 2 && text[at - 1] == '.' && (text[at - 2] == ')' || text[at - 2] == ']');
  return !attributeOfCall && !definesName(text, at);
}

NeedleSearch::NeedleSearch(const std::vector<std::string>& needles, Match match)
    : NeedleSearch([&] {
        std::vector<Needle> out;
        for (const std::string& text : needles) out.push_back({text, match, ClassScope::Member});
        return out;
      }()) {}

NeedleSearch::NeedleSearch(std::vector<Needle> needles) : filter_(65536 / 64, 0) {
  for (Needle& needle : needles) {
    const bool duplicate = std::any_of(needles_.begin(), needles_.end(), [&](const Needle& n) {
      return n.text == needle.text && n.match == needle.match && n.scope == needle.scope;
    });
    if (needle.text.empty() || duplicate || needles_.size() >= UINT16_MAX) continue;
    isName_.push_back(std::all_of(needle.text.begin(), needle.text.end(), isWordChar));
    needles_.push_back(std::move(needle));
  }
  // Only every stride_-th position is looked at. An occurrence of a needle of n >= 4 bytes
  // starting at p holds a window at the first looked-at position q >= p as long as
  // stride_ <= n - 3; that window is the needle's at offset q - p < stride_. So one short name
  // among long ones (a rescan's `eval` among `_test_ddp_logging_data`...) would make the whole
  // search look at every position: needles under the length that gives the cheapest search are
  // searched one by one instead (memmem, about a quarter of a stride-1 pass each, measured on
  // torch's sources).
  constexpr double kOneByOneCost = 0.25; // in stride-1 passes
  std::vector<size_t> lengths;
  for (const Needle& needle : needles_) lengths.push_back(needle.text.size());
  std::sort(lengths.begin(), lengths.end());
  size_t windowedFrom = 4; // needles of this length or more are found by their windows
  double cheapest = -1;
  for (size_t at = 0; at <= lengths.size(); ++at) {
    if (at < lengths.size() && (lengths[at] < 4 || (at > 0 && lengths[at] == lengths[at - 1]))) {
      continue;
    }
    const size_t from = at < lengths.size() ? lengths[at] : SIZE_MAX;
    const size_t oneByOne = static_cast<size_t>(
        std::count_if(lengths.begin(), lengths.end(),
                      [&](size_t n) { return n >= 4 && n < from; }));
    const double cost = (from == SIZE_MAX ? 0.0 : 1.0 / std::min<size_t>(from - 3, 16)) +
                        kOneByOneCost * static_cast<double>(oneByOne);
    if (cheapest < 0 || cost < cheapest) {
      cheapest = cost;
      windowedFrom = from;
    }
  }
  stride_ = windowedFrom == SIZE_MAX ? 1 : std::min<size_t>(windowedFrom - 3, 16);
  for (size_t index = 0; index < needles_.size(); ++index) {
    const std::string& text = needles_[index].text;
    if (text.size() < windowedFrom) {
      short_.push_back(static_cast<uint16_t>(index));
      continue;
    }
    for (size_t offset = 0; offset < stride_; ++offset) {
      const uint32_t window = loadWindow(text.data() + offset);
      const uint16_t hash = hashWindow(window);
      anchors_.push_back(
          {hash, window, static_cast<uint16_t>(index), static_cast<uint16_t>(offset)});
      filter_[hash / 64] |= uint64_t{1} << (hash % 64);
    }
  }
  std::sort(anchors_.begin(), anchors_.end());
}

bool NeedleSearch::matches(std::string_view text, size_t at, const Needle& needle,
                           bool isName) const {
  if (text.compare(at, needle.text.size(), needle.text) != 0) return false;
  const bool words = needle.match == Match::Word || needle.match == Match::Use ||
                     needle.match == Match::WordMarker;
  // Names match only as whole identifiers (a needle with other characters, `.eval(`, matches
  // anywhere).
  if (words && isName) {
    const size_t end = at + needle.text.size();
    if ((at > 0 && isWordChar(text[at - 1])) || (end < text.size() && isWordChar(text[end]))) {
      return false;
    }
  }
  switch (needle.match) {
  case Match::Substring:
  case Match::Word: return true;
  case Match::Marker:
  case Match::WordMarker: return !definesName(text, at);
  case Match::Use: return mayCall(text, at);
  }
  return true;
}

std::vector<Mention> NeedleSearch::find(std::string_view text) const {
  std::vector<Mention> mentions;
  if (needles_.empty()) return mentions;
  const size_t size = text.size();
  if (!anchors_.empty() && size >= 4) {
    for (size_t at = 0; at + 4 <= size; at += stride_) {
      const uint32_t window = loadWindow(text.data() + at);
      const uint16_t hash = hashWindow(window);
      if ((filter_[hash / 64] >> (hash % 64) & 1) == 0) continue;
      const Anchor key{hash, 0, 0, 0};
      for (auto anchor = std::lower_bound(anchors_.begin(), anchors_.end(), key);
           anchor != anchors_.end() && anchor->hash == hash; ++anchor) {
        if (anchor->window != window || anchor->offset > at) continue;
        const size_t start = at - anchor->offset;
        const Needle& needle = needles_[anchor->needle];
        if (matches(text, start, needle, isName_[anchor->needle])) {
          mentions.push_back({static_cast<uint32_t>(start), needle.scope});
        }
      }
    }
  }
  for (const uint16_t index : short_) {
    const Needle& needle = needles_[index];
    const char* const begin = text.data();
    const char* const end = begin + size;
    for (const char* at = begin; at < end;) {
      const auto* found = static_cast<const char*>(
          ::memmem(at, static_cast<size_t>(end - at), needle.text.data(), needle.text.size()));
      if (found == nullptr) break;
      const auto offset = static_cast<size_t>(found - begin);
      if (matches(text, offset, needle, isName_[index])) {
        mentions.push_back({static_cast<uint32_t>(offset), needle.scope});
      }
      at = found + 1;
    }
  }
  return mentions;
}

std::vector<Mention> findMentions(std::string_view text, const std::vector<std::string>& needles,
                                  Match match) {
  return NeedleSearch(needles, match).find(text);
}

bool conflictMarkerAt(std::string_view text, size_t at) {
  // git writes seven marker characters at the start of a line, then a space and a label (or the
  // line ends); `=======` is alone on its line.
  if (at > 0 && text[at - 1] != '\n') return false;
  const std::string_view rest = text.substr(std::min(at, text.size()));
  for (const std::string_view marker : {"<<<<<<<", "=======", ">>>>>>>"}) {
    if (!rest.starts_with(marker)) continue;
    const char next = rest.size() > marker.size() ? rest[marker.size()] : '\n';
    return next == '\n' || next == '\r' || (marker.front() != '=' && next == ' ');
  }
  return false;
}

std::vector<Mention> conflictMarkers(std::string_view text) {
  std::vector<Mention> markers;
  for (const std::string_view marker : {"<<<<<<<", "=======", ">>>>>>>"}) {
    for (size_t at = text.find(marker); at != std::string_view::npos;
         at = text.find(marker, at + marker.size())) {
      if (conflictMarkerAt(text, at)) {
        markers.push_back({static_cast<uint32_t>(at), ClassScope::Member});
      }
    }
  }
  return markers;
}

namespace {

// The chunk holding byte `at` in code, or SIZE_MAX when `at` is in a comment or string or before
// the first statement (a blank line). Both lists are sorted: a binary search each.
size_t codeChunkAt(const ChunkLayout& layout, uint32_t at) {
  const std::vector<ByteRange>& inert = layout.inert;
  auto after = std::upper_bound(inert.begin(), inert.end(), at,
                                [](uint32_t byte, const ByteRange& r) { return byte < r.start; });
  if (after != inert.begin() && at < std::prev(after)->end) return SIZE_MAX;
  const std::vector<SourceChunk>& chunks = layout.chunks;
  auto chunk = std::upper_bound(chunks.begin(), chunks.end(), at,
                                [](uint32_t byte, const SourceChunk& c) { return byte < c.start; });
  if (chunk == chunks.begin()) return SIZE_MAX;
  return static_cast<size_t>(std::prev(chunk) - chunks.begin());
}

bool inInert(const ChunkLayout& layout, size_t at) {
  const std::vector<ByteRange>& inert = layout.inert;
  auto after = std::upper_bound(inert.begin(), inert.end(), at,
                                [](size_t byte, const ByteRange& r) { return byte < r.start; });
  return after != inert.begin() && at < std::prev(after)->end;
}

// Only blanks between the start of its line and `at`.
bool startsLine(std::string_view text, size_t at) {
  while (at > 0 && (text[at - 1] == ' ' || text[at - 1] == '\t' || text[at - 1] == '\f')) --at;
  return at == 0 || text[at - 1] == '\n' || text[at - 1] == '\r';
}

// Whether the name at [at, end) is called: `(` follows, maybe after blanks or line breaks.
bool calledAt(std::string_view text, size_t end) {
  while (end < text.size() && std::isspace(static_cast<unsigned char>(text[end])) != 0) ++end;
  return end < text.size() && text[end] == '(';
}

// What makes a function with a restoring region worth parsing whatever the selected rules are,
// outside comments and strings: a backward call (GL302 and GL304 ask where its value was
// computed; GL301/GL305 read the loop), a toggle or a context entered by hand (GL101-GL107), a
// gradient reset (callers' training loops read it from the summary), a switch to train or eval
// mode (GL303, and what GL201 calls training), an offload API (GL201/GL202). A `step()` alone
// is not: the training-loop rules need a backward beside it, and no summary carries steps.
//
// How a spoiler's text must appear:
enum class SpoilerMatch : uint8_t {
  Substring,   // anywhere, inside any name
  WholeEnd,    // not followed by an identifier character (`.grad`, not `.gradient_scale`)
  CalledName,  // the whole name, called: the lowering makes a backward only of a call
  CatalogName, // inside a name of the offload catalog (`cpu_offload(`), not `offload_params`
};
struct Spoiler {
  std::string_view text;
  SpoilerMatch match;
};
constexpr std::array<Spoiler, 14> kRegionSpoilers = {{
    {"backward", SpoilerMatch::CalledName},
    {"manual_backward", SpoilerMatch::CalledName},
    {"grad_enabled", SpoilerMatch::Substring},
    {"enable_grad", SpoilerMatch::Substring},
    {"_enter", SpoilerMatch::Substring},
    {"_exit", SpoilerMatch::Substring},
    {"zero_grad", SpoilerMatch::Substring},
    {".grad", SpoilerMatch::WholeEnd},
    {"requires_grad", SpoilerMatch::Substring},
    {".train(", SpoilerMatch::Substring},
    {".eval(", SpoilerMatch::Substring},
    {"offload", SpoilerMatch::CatalogName},
    {"device_map", SpoilerMatch::CatalogName},
    {"dispatch", SpoilerMatch::CatalogName},
}};

// The name a function's chunk defines: on the line after its decorators, at the chunk's own
// indentation, `def NAME` or `async def NAME`. Empty for a class, a split class's header or a
// statement.
std::string_view functionNameOf(std::string_view text, const SourceChunk& chunk) {
  if (!chunk.definition || chunk.membersEnd > 0) return {};
  const std::string_view body = text.substr(chunk.start, chunk.end - chunk.start);
  const uint32_t indent = indentOf(text, chunk.start);
  for (size_t line = 0; line < body.size();) {
    if (indentOf(body, line) == indent) {
      std::string_view rest = body.substr(line + indent);
      if (rest.starts_with("class ")) return {};
      if (rest.starts_with("async ")) rest.remove_prefix(6);
      if (rest.starts_with("def ")) {
        rest.remove_prefix(4);
        while (rest.starts_with(' ') || rest.starts_with('\t')) rest.remove_prefix(1);
        size_t end = 0;
        while (end < rest.size() && isWordChar(rest[end])) ++end;
        return rest.substr(0, end);
      }
    }
    const size_t next = body.find('\n', line);
    if (next == std::string_view::npos) break;
    line = next + 1;
  }
  return {};
}

// A chunk that a restoring region alone does not make worth parsing: a function's (not a
// class's: a class body runs at import), naming no spoiler.
bool quietFunction(std::string_view text, const ChunkLayout& layout, const SourceChunk& chunk) {
  if (functionNameOf(text, chunk).empty()) return false;
  const std::string_view body = text.substr(chunk.start, chunk.end - chunk.start);
  // A nested definition that the function returns: a decorator's wrapper, whose region (`with
  // torch.no_grad():` around the wrapped call) the decorator's summary carries to every function
  // it decorates.
  const size_t header = body.find("def ");
  for (size_t nested = header == std::string_view::npos ? header : body.find("def ", header + 4);
       nested != std::string_view::npos; nested = body.find("def ", nested + 4)) {
    if ((body[nested - 1] != ' ' && body[nested - 1] != '\t') ||
        inInert(layout, chunk.start + nested)) {
      continue;
    }
    size_t nameEnd = nested + 4;
    while (nameEnd < body.size() && isWordChar(body[nameEnd])) ++nameEnd;
    if (nameEnd == nested + 4) continue;
    const std::string returned =
        "return " + std::string(body.substr(nested + 4, nameEnd - nested - 4));
    for (size_t at = body.find(returned, nameEnd); at != std::string_view::npos;
         at = body.find(returned, at + 1)) {
      const size_t end = at + returned.size();
      if (end == body.size() || !isWordChar(body[end])) return false;
    }
  }
  for (const Spoiler& spoiler : kRegionSpoilers) {
    for (size_t found = body.find(spoiler.text); found != std::string_view::npos;
         found = body.find(spoiler.text, found + 1)) {
      const size_t spoilerEnd = found + spoiler.text.size();
      const std::string_view name = spoiler.match == SpoilerMatch::Substring
                                        ? body.substr(found, spoiler.text.size())
                                        : nameAround(body, found, spoilerEnd);
      const auto end = static_cast<size_t>(name.end() - body.begin());
      if (end != spoilerEnd && spoiler.match == SpoilerMatch::WholeEnd) continue;
      if (spoiler.match == SpoilerMatch::CalledName &&
          (name != spoiler.text || !calledAt(body, end))) {
        continue;
      }
      if (spoiler.match == SpoilerMatch::CatalogName &&
          !catalog::isOffloadVocabulary(name, calledAt(body, end))) {
        continue;
      }
      if (!inInert(layout, chunk.start + found)) return false;
    }
  }
  return true;
}

} // namespace

bool restoringRegionAt(std::string_view text, size_t at) {
  if (at >= text.size() || (at > 0 && isWordChar(text[at - 1]))) return false;
  const std::string_view name = nameAt(text, at);
  if (name != "no_grad" && name != "inference_mode") return false;
  const size_t end = at + name.size();
  if (text.substr(end, 2) != "()") return false;
  size_t after = end + 2;
  while (after < text.size() && (text[after] == ' ' || text[after] == '\t')) ++after;
  // The dotted name: `torch.no_grad`, `torch.autograd.no_grad`, `no_grad`; not `f().no_grad`.
  size_t start = at;
  while (start > 0 && (isWordChar(text[start - 1]) || text[start - 1] == '.')) --start;
  if (text[start] == '.') return false;
  if (start > 0 && text[start - 1] == '@') {
    const bool lineEnds = after >= text.size() || text[after] == '\n' || text[after] == '\r' ||
                          text[after] == '#';
    return lineEnds && startsLine(text, start - 1);
  }
  // `with NAME():` or `with NAME(), ...:`, as a statement of its own.
  if (after >= text.size() || (text[after] != ':' && text[after] != ',')) return false;
  size_t keyword = start;
  while (keyword > 0 && (text[keyword - 1] == ' ' || text[keyword - 1] == '\t')) --keyword;
  if (keyword == start || keyword < 4 || text.substr(keyword - 4, 4) != "with") return false;
  keyword -= 4;
  if (keyword >= 6 && text.substr(keyword - 6, 6) == "async ") keyword -= 6;
  return startsLine(text, keyword);
}

size_t dropRestoringRegions(std::string_view text, const ChunkLayout& layout,
                            std::vector<Mention>& mentions) {
  // Per chunk: 0 not yet known, 1 quiet, 2 not.
  std::unordered_map<size_t, uint8_t> quiet;
  const size_t before = mentions.size();
  std::erase_if(mentions, [&](const Mention& mention) {
    if (!restoringRegionAt(text, mention.at)) return false;
    const size_t index = codeChunkAt(layout, mention.at);
    if (index == SIZE_MAX) return false;
    uint8_t& known = quiet[index];
    if (known == 0) known = quietFunction(text, layout, layout.chunks[index]) ? 1 : 2;
    return known == 1;
  });
  return before - mentions.size();
}

namespace {

// What, beside a backward, makes a function's backward matter to a rule: an optimizer step
// (GL301/GL305 read a backward and a step of one function; see callsStep) or a grad-mode API
// that can disable grad in it (GL302/GL304 ask whether the backward's value was computed so).
// Substrings, in code, comments or strings alike: finding one where it does not count only
// parses more.
constexpr std::array<std::string_view, 4> kGradModeCompanions = {"no_grad", "inference_mode",
                                                                 "grad_enabled", "_enter"};

// The length of the backward name at `at`, or 0.
size_t backwardAt(std::string_view text, size_t at) {
  const std::string_view rest = text.substr(at);
  if (rest.starts_with("backward")) return 8;
  if (rest.starts_with("manual_backward")) return 15;
  return 0;
}

// An optimizer step as the lowering makes one: a call of an attribute named `step` (blanks and
// line breaks allowed around the dot). A bare `step` is also `training_step`, `step_size=1`.
bool callsStep(std::string_view body) {
  auto isBlank = [](char c) {
    return std::isspace(static_cast<unsigned char>(c)) != 0 || c == '\\';
  };
  for (size_t at = body.find("step"); at != std::string_view::npos;
       at = body.find("step", at + 4)) {
    size_t before = at;
    while (before > 0 && isBlank(body[before - 1])) --before;
    if (before > 0 && body[before - 1] == '.' && calledAt(body, at + 4)) return true;
  }
  return false;
}

// Names the file binds to a grad-mode companion: import aliases (`from torch import no_grad as
// ng`) and module-level assignments (`ng = torch.no_grad`). A function may call the API by
// those only.
std::vector<std::string> companionAliases(std::string_view text, const ChunkLayout& layout) {
  const std::vector<std::string> companions(kGradModeCompanions.begin(),
                                            kGradModeCompanions.end());
  std::vector<std::string> aliases = importAliases(text, layout.chunks, companions);
  auto namesOne = [](std::string_view statement) {
    return std::any_of(
        kGradModeCompanions.begin(), kGradModeCompanions.end(),
        [&](std::string_view name) { return statement.find(name) != std::string_view::npos; });
  };
  for (const SourceChunk& chunk : layout.chunks) {
    if (chunk.definition || chunk.imports || chunk.header >= 0) continue;
    const std::string_view statement = text.substr(chunk.start, chunk.end - chunk.start);
    if (!namesOne(statement)) continue;
    const size_t first = indentOf(text, chunk.start);
    size_t end = first;
    while (end < statement.size() && isWordChar(statement[end])) ++end;
    if (end > first) aliases.emplace_back(statement.substr(first, end - first));
  }
  return aliases;
}

bool namesCompanion(std::string_view body, const std::vector<std::string>& aliases) {
  for (std::string_view companion : kGradModeCompanions) {
    if (body.find(companion) != std::string_view::npos) return true;
  }
  if (callsStep(body)) return true;
  return std::any_of(aliases.begin(), aliases.end(), [&](const std::string& alias) {
    return !findMentions(body, {alias}, Match::Word).empty();
  });
}

} // namespace

size_t dropLoneBackwards(std::string_view text, const ChunkLayout& layout,
                         std::vector<Mention>& mentions) {
  std::unordered_map<size_t, bool> lone; // per function chunk
  std::optional<std::vector<std::string>> aliases;
  const size_t before = mentions.size();
  std::erase_if(mentions, [&](const Mention& mention) {
    const size_t length = backwardAt(text, mention.at);
    if (length == 0) return false;
    // The lowering makes a backward only of a call (`Tensor.backward: lambda ...` in a table
    // of overrides is none).
    if (!calledAt(text, mention.at + length)) return true;
    const size_t index = codeChunkAt(layout, mention.at);
    if (index == SIZE_MAX) return false;
    const auto known = lone.find(index);
    if (known != lone.end()) return known->second;
    const SourceChunk& chunk = layout.chunks[index];
    bool drop = false;
    if (!functionNameOf(text, chunk).empty()) {
      if (!aliases) aliases = companionAliases(text, layout);
      drop = !namesCompanion(text.substr(chunk.start, chunk.end - chunk.start), *aliases);
    }
    lone.emplace(index, drop);
    return drop;
  });
  return before - mentions.size();
}

size_t dropForeignNames(std::string_view text, std::string_view marker,
                        bool (*known)(std::string_view name, bool called),
                        std::vector<Mention>& mentions) {
  const size_t before = mentions.size();
  std::erase_if(mentions, [&](const Mention& mention) {
    if (text.substr(mention.at, marker.size()) != marker) return false;
    const std::string_view name = nameAround(text, mention.at, mention.at + marker.size());
    return !known(name, calledAt(text, static_cast<size_t>(name.end() - text.begin())));
  });
  return before - mentions.size();
}

std::vector<Mention> optimizerMentions(std::string_view text) {
  static const NeedleSearch kOptim({"optim"}, Match::Substring);
  std::vector<Mention> mentions = kOptim.find(text);
  std::erase_if(mentions, [&](const Mention& mention) {
    const std::string_view rest = text.substr(mention.at + 5);
    // `optimize`, `optimized`, `optimization`, `optimise`: but `optimizer`, `optimiser`.
    if (rest.starts_with("iz") || rest.starts_with("is")) return rest.substr(2, 2) != "er";
    return rest.starts_with("al") || rest.starts_with("um"); // `optimal`, `optimum`
  });
  return mentions;
}

size_t dropBoundNames(std::string_view text, const ChunkLayout& layout,
                      std::vector<Mention>& mentions) {
  const size_t before = mentions.size();
  std::erase_if(mentions, [&](const Mention& mention) {
    const size_t index = codeChunkAt(layout, mention.at);
    if (index == SIZE_MAX) return false;
    const SourceChunk& chunk = layout.chunks[index];
    if (chunk.definition || chunk.imports || chunk.membersEnd > 0) return false;
    // The statement's first word, the mention inside it, then `=` (not `==`).
    const size_t first = chunk.start + indentOf(text, chunk.start);
    size_t end = first + nameAt(text, first).size();
    if (mention.at < first || mention.at >= end) return false;
    while (end < text.size() && (text[end] == ' ' || text[end] == '\t')) ++end;
    return end + 1 < text.size() && text[end] == '=' && text[end + 1] != '=';
  });
  return before - mentions.size();
}

bool chooseMentioned(const ChunkLayout& layout, const std::vector<Mention>& mentions,
                     std::vector<bool>& chosen, std::vector<uint32_t>* deferredClasses) {
  const std::vector<SourceChunk>& chunks = layout.chunks;
  bool marked = false;
  auto mark = [&](size_t index) {
    if (!chosen[index]) {
      chosen[index] = true;
      marked = true;
    }
  };
  // A class's chunks: its header and every member, nested classes' members included. Each
  // class once per call: many mentions in one class must not cost members x mentions.
  std::vector<bool> classMarked;
  auto markClass = [&](size_t header) {
    if (classMarked.empty()) classMarked.assign(chunks.size(), false);
    if (classMarked[header]) return;
    classMarked[header] = true;
    for (size_t i = header; i < chunks[header].membersEnd; ++i) mark(i);
  };
  // A member is parsed inside its class: the headers of every class around it.
  auto markHeaders = [&](int32_t header) {
    for (; header >= 0; header = chunks[static_cast<size_t>(header)].header) {
      mark(static_cast<size_t>(header));
    }
  };
  for (const Mention& mention : mentions) {
    const size_t index = codeChunkAt(layout, mention.at);
    if (index == SIZE_MAX) continue;
    const SourceChunk& found = chunks[index];
    if (found.membersEnd > 0) {
      markClass(index); // a header: decorators or bases apply to every member
      markHeaders(found.header);
    } else if (found.header >= 0 && mention.scope == ClassScope::WholeClass &&
               deferredClasses == nullptr) {
      markClass(static_cast<size_t>(found.header));
      markHeaders(chunks[static_cast<size_t>(found.header)].header);
    } else {
      if (found.header >= 0 && mention.scope == ClassScope::WholeClass) {
        const auto header = static_cast<uint32_t>(found.header);
        if (std::find(deferredClasses->begin(), deferredClasses->end(), header) ==
            deferredClasses->end()) {
          deferredClasses->push_back(header);
        }
      }
      mark(index);
      markHeaders(found.header);
    }
  }
  return marked;
}

bool chooseClass(const ChunkLayout& layout, uint32_t header, std::vector<bool>& chosen) {
  const std::vector<SourceChunk>& chunks = layout.chunks;
  bool marked = false;
  for (size_t i = header; i < chunks[header].membersEnd; ++i) {
    marked = marked || !chosen[i];
    chosen[i] = true;
  }
  for (int32_t around = chunks[header].header; around >= 0;
       around = chunks[static_cast<size_t>(around)].header) {
    marked = marked || !chosen[static_cast<size_t>(around)];
    chosen[static_cast<size_t>(around)] = true;
  }
  return marked;
}

bool chooseChunks(std::string_view text, const ChunkLayout& layout,
                  const std::vector<std::string>& needles, std::vector<bool>& chosen, Match match) {
  return chooseMentioned(layout, NeedleSearch(needles, match).find(text), chosen);
}

std::vector<std::string> namesBoundAtStart(std::string_view statement) {
  std::vector<std::string> names;
  size_t at = 0;
  auto skipSpaces = [&] {
    while (at < statement.size() && (statement[at] == ' ' || statement[at] == '\t')) ++at;
  };
  // Target groups `a, b =`, chained (`a = b = 2`); anything else ends the targets.
  while (true) {
    std::vector<std::string> group;
    while (true) {
      skipSpaces();
      const size_t start = at;
      if (at < statement.size() && std::isdigit(static_cast<unsigned char>(statement[at]))) {
        return names;
      }
      while (at < statement.size() && isWordChar(statement[at])) ++at;
      if (at == start) return names;
      group.emplace_back(statement.substr(start, at - start));
      skipSpaces();
      if (at < statement.size() && statement[at] == ',') {
        ++at;
        continue;
      }
      break;
    }
    if (at < statement.size() && statement[at] == ':' && group.size() == 1) {
      names.push_back(group.front()); // an annotated name: bound whether or not a value follows
      return names;
    }
    if (at + 1 < statement.size() && statement[at] == '=' && statement[at + 1] != '=') {
      names.insert(names.end(), group.begin(), group.end());
      ++at;
      continue;
    }
    return names;
  }
}

// What a module statement binds: at its start, and for a compound statement (`if FLAG:` with
// `config = ...` in each branch, `try:`, `for`, `with`), at the start of each line of its body.
// A keyword argument on a line of its own (`    dtype=torch.float16,`) looks like a binding
// too: that only makes more statements worth parsing.
std::vector<std::string> namesBoundInStatement(std::string_view statement) {
  std::vector<std::string> names = namesBoundAtStart(statement);
  static constexpr std::string_view kCompound[] = {"if ",  "if(",    "for ",  "while ", "with ",
                                                   "try:", "async ", "match "};
  if (std::none_of(std::begin(kCompound), std::end(kCompound),
                   [&](std::string_view head) { return statement.starts_with(head); })) {
    return names;
  }
  for (size_t newline = statement.find('\n'); newline != std::string_view::npos;
       newline = statement.find('\n', newline + 1)) {
    size_t line = newline + 1;
    while (line < statement.size() && (statement[line] == ' ' || statement[line] == '\t')) {
      ++line;
    }
    for (std::string& name : namesBoundAtStart(statement.substr(line))) {
      // `else:` and `finally:` read as annotated names.
      static constexpr std::string_view kKeywords[] = {"else", "try", "finally", "except"};
      if (std::find(std::begin(kKeywords), std::end(kKeywords), name) == std::end(kKeywords)) {
        names.push_back(std::move(name));
      }
    }
  }
  return names;
}

namespace {

// `NAME = <literal>` (`MODEL_ID = "gpt2"`, `LR = 1e-4`, `MAP = {"": 0}`, `DEBUG = False`): a
// statement whose value after its first `=` starts as a literal does.
bool bindsLiteral(std::string_view statement) {
  size_t equals = statement.find('=');
  while (equals != std::string_view::npos && equals + 1 < statement.size() &&
         statement[equals + 1] == '=') {
    equals = statement.find('=', equals + 2);
  }
  if (equals == std::string_view::npos) return false;
  size_t value = statement.find_first_not_of(" \t", equals + 1);
  if (value == std::string_view::npos) return false;
  const std::string_view rest = statement.substr(value);
  for (std::string_view constant : {"True", "False", "None"}) {
    if (rest.starts_with(constant)) return true;
  }
  size_t quote = 0; // string prefixes: r"", b'', f"", rb"", ...
  while (quote < 2 && quote < rest.size() && std::strchr("rRbBfFuU", rest[quote]) != nullptr) {
    ++quote;
  }
  if (quote < rest.size() && (rest[quote] == '"' || rest[quote] == '\'')) return true;
  return rest[0] != '\0' && std::strchr("0123456789-.{[(", rest[0]) != nullptr;
}

} // namespace

namespace {

// `NAME` of a statement that starts `NAME.attribute` (a method call, an attribute written):
// the object it acts on. Empty for any other statement.
std::string_view receiverAtStart(std::string_view text, const SourceChunk& chunk) {
  const size_t first = chunk.start + indentOf(text, chunk.start);
  const std::string_view receiver = nameAt(text.substr(0, chunk.end), first);
  const size_t end = first + receiver.size();
  if (receiver.empty() || end >= chunk.end || text[end] != '.') return {};
  return receiver;
}

} // namespace

bool chooseModuleFlow(std::string_view text, const ChunkLayout& layout,
                      std::vector<bool>& chosen, std::vector<bool>& asBinding) {
  const std::vector<SourceChunk>& chunks = layout.chunks;
  if (asBinding.size() != chunks.size()) asBinding.assign(chunks.size(), false);
  auto isStatement = [&](size_t i) {
    return !chunks[i].definition && chunks[i].header < 0 && !chunks[i].imports;
  };
  // The names each statement binds at its start, and the statements binding each name.
  std::unordered_map<uint32_t, std::vector<std::string>> bindsOf;
  std::unordered_map<std::string_view, std::vector<uint32_t>> binders;
  // A chosen definition reads module names too (`MODEL_ID = "gpt2"` above a function that
  // loads it): it starts the backward walk below, not the forward one.
  auto isChosenDefinition = [&](size_t i) {
    return chosen[i] && !isStatement(i) && !chunks[i].imports;
  };
  bool anyChosen = false;
  for (size_t i = 0; i < chunks.size(); ++i) {
    anyChosen = anyChosen || isChosenDefinition(i);
    if (!isStatement(i)) continue;
    anyChosen = anyChosen || (chosen[i] && !asBinding[i]);
    std::vector<std::string> names =
        namesBoundInStatement(text.substr(chunks[i].start, chunks[i].end - chunks[i].start));
    if (!names.empty()) bindsOf.emplace(static_cast<uint32_t>(i), std::move(names));
  }
  if (!anyChosen || bindsOf.empty()) return false;
  for (const auto& [statement, names] : bindsOf) {
    for (const std::string& name : names) binders[name].push_back(statement);
  }
  bool marked = false;
  if (binders.size() >= 0xffff) { // more names than one search holds (generated code)
    for (size_t i = 0; i < chunks.size(); ++i) {
      if (isStatement(i) && !chosen[i]) chosen[i] = marked = true;
    }
    return marked;
  }
  // Which statements name each bound name, and the names each statement names.
  std::vector<std::string> needles;
  needles.reserve(binders.size());
  for (const auto& [name, statements] : binders) needles.emplace_back(name);
  std::unordered_map<std::string_view, std::vector<uint32_t>> users;
  std::unordered_map<uint32_t, std::vector<std::string_view>> namesIn;
  for (const Mention& mention : NeedleSearch(needles, Match::Word).find(text)) {
    const uint32_t at = mention.at;
    const size_t found = codeChunkAt(layout, at);
    if (found == SIZE_MAX || !(isStatement(found) || isChosenDefinition(found))) continue;
    const auto index = static_cast<uint32_t>(found);
    const std::string_view name = nameAt(text, at);
    if (!isStatement(found)) {
      namesIn[index].push_back(name); // repeats are followed once below
      continue;
    }
    std::vector<uint32_t>& naming = users[name];
    if (naming.empty() || naming.back() != index) {
      naming.push_back(index);
      namesIn[index].push_back(name);
    }
  }
  auto choose = [&](uint32_t statement, std::vector<uint32_t>& work, bool binding) {
    if (chosen[statement] && !(asBinding[statement] && !binding)) return;
    if (!chosen[statement]) marked = true;
    chosen[statement] = true;
    asBinding[statement] = binding;
    work.push_back(statement);
  };
  // Forward, from the chosen statements: what a statement binds reaches the statements that
  // name it, transitively (`m = load(...)`, `m2 = m`, `m2.train()`).
  std::vector<uint32_t> work;
  std::vector<uint32_t> reached; // chosen, or reached forward
  for (size_t i = 0; i < chunks.size(); ++i) {
    if (isStatement(i) && chosen[i] && !asBinding[i]) work.push_back(static_cast<uint32_t>(i));
  }
  std::unordered_set<std::string_view> followed;
  auto follow = [&](std::string_view name) {
    if (!followed.insert(name).second) return;
    if (const auto found = users.find(name); found != users.end()) {
      for (uint32_t user : found->second) choose(user, work, false);
    }
  };
  while (!work.empty()) {
    const uint32_t statement = work.back();
    work.pop_back();
    reached.push_back(statement);
    // A module object that the statement acts on (`pipe.enable_model_cpu_offload()`): what
    // happens to it after matters as much as what a binding starts (`pipe.unet(x).backward()`).
    const std::string_view receiver = receiverAtStart(text, chunks[statement]);
    if (!receiver.empty() && binders.count(receiver) != 0) follow(receiver);
    const auto binds = bindsOf.find(statement);
    if (binds == bindsOf.end()) continue;
    for (const std::string& name : binds->second) follow(name);
  }
  // Backward, from those: what a statement names reaches the statements binding it,
  // transitively (`offload_map = {...}` above `heavy = X.from_pretrained(...,
  // device_map=offload_map)`). A binding reached this way does not reach its other uses.
  // From the chosen definitions, one step: the module constants they read (`MODEL_ID =
  // "gpt2"`, a literal bound at a statement's start), not every binding of every module name a
  // function mentions (loggers, aliases, tables: torch's sources would parse a sixth more).
  for (const auto& [chunk, names] : namesIn) {
    if (isStatement(chunk)) continue;
    for (std::string_view name : names) {
      const auto found = binders.find(name);
      if (found == binders.end()) continue;
      for (uint32_t binder : found->second) {
        if (chosen[binder] ||
            !bindsLiteral(text.substr(chunks[binder].start,
                                      chunks[binder].end - chunks[binder].start))) {
          continue;
        }
        chosen[binder] = asBinding[binder] = marked = true;
      }
    }
  }
  work = std::move(reached);
  followed.clear();
  while (!work.empty()) {
    const uint32_t statement = work.back();
    work.pop_back();
    const auto names = namesIn.find(statement);
    if (names == namesIn.end()) continue;
    for (std::string_view name : names->second) {
      if (!followed.insert(name).second) continue;
      if (const auto found = binders.find(name); found != binders.end()) {
        for (uint32_t binder : found->second) {
          if (!chosen[binder]) choose(binder, work, true);
        }
      }
    }
  }
  return marked;
}

std::vector<std::string> importAliases(std::string_view text,
                                       const std::vector<SourceChunk>& chunks,
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

bool chooseLocalCallers(std::string_view text, const ChunkLayout& layout,
                        std::vector<bool>& chosen, std::vector<bool> before) {
  constexpr int kPasses = 8; // a bound: each pass searches the text once
  bool marked = false;
  for (int pass = 0; pass < kPasses; ++pass) {
    std::vector<std::string> names;
    for (size_t i = 0; i < layout.chunks.size(); ++i) {
      if (!chosen[i] || before[i]) continue;
      // Not a dunder: Python calls those (`__init__`, `__call__`) without naming them.
      const std::string_view name = functionNameOf(text, layout.chunks[i]);
      if (!name.empty() && !name.starts_with("__")) names.emplace_back(name);
    }
    if (names.empty()) break;
    before = chosen;
    if (!chooseChunks(text, layout, names, chosen, Match::Use)) break;
    marked = true;
  }
  return marked;
}

bool chooseTrainerSubclasses(std::string_view text, const ChunkLayout& layout,
                             std::vector<bool>& chosen) {
  bool marked = false;
  const std::vector<SourceChunk>& chunks = layout.chunks;
  for (size_t header = 0; header < chunks.size(); ++header) {
    const SourceChunk& chunk = chunks[header];
    if (chunk.membersEnd == 0 || chosen[header]) continue;
    const std::string_view code = text.substr(chunk.start, chunk.end - chunk.start);
    size_t at = code.find("class ");
    while (at != std::string_view::npos && at > 0 && code[at - 1] != '\n') {
      at = code.find("class ", at + 1);
    }
    if (at == std::string_view::npos) continue;
    size_t nameEnd = at + 6;
    while (nameEnd < code.size() && code[nameEnd] == ' ') ++nameEnd;
    const size_t nameStart = nameEnd;
    while (nameEnd < code.size() && isWordChar(code[nameEnd])) ++nameEnd;
    const size_t open = code.find('(', nameEnd);
    const size_t close = open == std::string_view::npos ? open : code.find(')', open);
    if (nameEnd == nameStart || close == std::string_view::npos ||
        code.substr(open, close - open).find("Trainer") == std::string_view::npos) {
      continue;
    }
    const std::string call = std::string(code.substr(nameStart, nameEnd - nameStart)) + "(";
    bool instantiated = false;
    for (size_t other = 0; other < chunks.size() && !instantiated; ++other) {
      if (!chosen[other] || (other >= header && other < chunk.membersEnd)) continue;
      const std::string_view body =
          text.substr(chunks[other].start, chunks[other].end - chunks[other].start);
      for (size_t found = body.find(call); found != std::string_view::npos;
           found = body.find(call, found + 1)) {
        if (found == 0 || !isWordChar(body[found - 1])) {
          instantiated = true;
          break;
        }
      }
    }
    if (!instantiated) continue;
    for (size_t member = header; member < chunk.membersEnd; ++member) {
      marked = marked || !chosen[member];
      chosen[member] = true;
    }
  }
  return marked;
}

} // namespace gradlint::python
