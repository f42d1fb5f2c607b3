#include "tool/lsp/noqa_comment.h"

#include "checkers/ir/ascii.h"

#include <cctype>

namespace gradlint::lsp {
namespace {

bool equalsIgnoringCase(std::string_view text, size_t at, std::string_view word) {
  return at <= text.size() && asciiIEquals(text.substr(at, word.size()), word);
}

bool isBlank(char c) { return c == ' ' || c == '\t'; }

} // namespace

LineComment findComment(std::string_view line) {
  LineComment comment;
  char quote = 0;      // the open string's quote character, 0 outside strings
  bool triple = false; // the open string is triple-quoted
  size_t i = 0;
  while (i < line.size()) {
    const char c = line[i];
    if (quote != 0) {
      if (c == '\\') {
        i += 2;
      } else if (c == quote && (!triple || line.substr(i, 3) == std::string(3, quote))) {
        i += triple ? 3 : 1;
        quote = 0;
      } else {
        ++i;
      }
      continue;
    }
    if (c == '#') {
      comment.start = i;
      return comment;
    }
    if (c == '"' || c == '\'') {
      quote = c;
      triple = line.substr(i, 3) == std::string(3, c);
      i += triple ? 3 : 1;
      continue;
    }
    ++i;
  }
  size_t last = line.size();
  while (last > 0 && isBlank(line[last - 1])) --last;
  comment.continues = quote != 0 || (last > 0 && line[last - 1] == '\\');
  return comment;
}

NoqaDirective findNoqa(std::string_view line, size_t commentStart) {
  NoqaDirective directive;
  if (commentStart >= line.size()) return directive;
  for (size_t at = commentStart; at + 4 <= line.size(); ++at) {
    if (!equalsIgnoringCase(line, at, "noqa")) continue;
    // Only `# noqa` and `# gradlint: noqa` count, as in the suppression parser.
    size_t before = at;
    while (before > commentStart && isBlank(line[before - 1])) --before;
    const bool afterHash = before > commentStart && line[before - 1] == '#';
    const bool afterTool =
        before >= commentStart + 9 && equalsIgnoringCase(line, before - 9, "gradlint:");
    if (!afterHash && !afterTool) continue;
    size_t pos = at + 4;
    if (pos < line.size() && std::isalnum(static_cast<unsigned char>(line[pos]))) continue;
    directive.found = true;
    if (pos >= line.size() || line[pos] != ':') {
      directive.bare = true;
      directive.listEnd = pos;
      return directive;
    }
    ++pos;
    directive.listEnd = pos;
    while (pos < line.size()) {
      while (pos < line.size() && (isBlank(line[pos]) || line[pos] == ',')) ++pos;
      size_t end = pos;
      while (end < line.size() && std::isalpha(static_cast<unsigned char>(line[end]))) ++end;
      const size_t digits = end;
      while (end < line.size() && std::isdigit(static_cast<unsigned char>(line[end]))) ++end;
      if (digits == pos || end == digits) break;
      NoqaCode code{pos, end, asciiUpper(line.substr(pos, end - pos))};
      directive.codes.push_back(std::move(code));
      directive.listEnd = end;
      pos = end;
    }
    return directive;
  }
  return directive;
}

} // namespace gradlint::lsp
