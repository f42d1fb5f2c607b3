#include "checkers/cpp/nolint.h"

#include "checkers/ir/ascii.h"

#include <algorithm>
#include <cctype>
#include <optional>

namespace gradlint::cpp {
namespace {

bool isIdentifierChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_';
}

std::string_view trim(std::string_view text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front()))) {
    text.remove_prefix(1);
  }
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) {
    text.remove_suffix(1);
  }
  return text;
}

// One comment: its text and the 0-based line it starts on.
struct Comment {
  std::string_view text;
  uint32_t line = 0;
};

// The comments of a C++ source, skipping string, character and raw string literals.
std::vector<Comment> scanComments(std::string_view source) {
  std::vector<Comment> comments;
  uint32_t line = 0;
  size_t i = 0;
  const size_t n = source.size();
  auto advance = [&](size_t to) {
    for (; i < to && i < n; ++i) {
      if (source[i] == '\n') ++line;
    }
  };
  while (i < n) {
    const char c = source[i];
    if (c == '\n') {
      ++line;
      ++i;
    } else if (c == '/' && i + 1 < n && source[i + 1] == '/') {
      size_t end = i;
      // A backslash at the end of the line continues a // comment.
      while (end < n && !(source[end] == '\n' && (end == 0 || source[end - 1] != '\\'))) ++end;
      comments.push_back({source.substr(i, end - i), line});
      advance(end);
    } else if (c == '/' && i + 1 < n && source[i + 1] == '*') {
      const size_t close = source.find("*/", i + 2);
      const size_t end = close == std::string_view::npos ? n : close + 2;
      comments.push_back({source.substr(i, end - i), line});
      advance(end);
    } else if (c == '"' || c == '\'') {
      // Raw string: R"delim( ... )delim", with an optional u8/u/U/L prefix before the R.
      if (c == '"' && i > 0 && source[i - 1] == 'R' &&
          (i < 2 || !isIdentifierChar(source[i - 2]) || source[i - 2] == '8' ||
           source[i - 2] == 'u' || source[i - 2] == 'U' || source[i - 2] == 'L')) {
        const size_t open = source.find('(', i + 1);
        if (open != std::string_view::npos) {
          const std::string terminator =
              ")" + std::string(source.substr(i + 1, open - i - 1)) + "\"";
          const size_t close = source.find(terminator, open + 1);
          advance(close == std::string_view::npos ? n : close + terminator.size());
          continue;
        }
      }
      if (c == '\'' && i > 0 && isIdentifierChar(source[i - 1])) {
        // A digit separator (1'000) when the token it is in starts with a digit.
        size_t start = i;
        while (start > 0 && (isIdentifierChar(source[start - 1]) || source[start - 1] == '\'' ||
                             source[start - 1] == '.')) {
          --start;
        }
        if (std::isdigit(static_cast<unsigned char>(source[start])) != 0) {
          ++i;
          continue;
        }
      }
      size_t end = i + 1;
      while (end < n && source[end] != c && source[end] != '\n') {
        end += source[end] == '\\' ? 2 : 1;
      }
      advance(std::min(end + 1, n));
    } else {
      ++i;
    }
  }
  return comments;
}

enum class Directive { Line, NextLine, Begin, End };

struct Found {
  Directive directive = Directive::Line;
  uint32_t line = 0;
  std::optional<std::string> checks; // the text in parentheses; nullopt: no list (all checks)
};

std::vector<Found> directives(const Comment& comment) {
  std::vector<Found> found;
  const std::string_view text = comment.text;
  for (size_t at = text.find("NOLINT"); at != std::string_view::npos;
       at = text.find("NOLINT", at + 6)) {
    if (at > 0 && isIdentifierChar(text[at - 1])) continue;
    size_t pos = at + 6;
    Found directive;
    using Word = std::pair<std::string_view, Directive>;
    for (auto [word, kind] : {Word{"NEXTLINE", Directive::NextLine},
                              Word{"BEGIN", Directive::Begin}, Word{"END", Directive::End}}) {
      if (text.substr(pos, word.size()) == word) {
        directive.directive = kind;
        pos += word.size();
        break;
      }
    }
    if (pos < text.size() && isIdentifierChar(text[pos])) continue; // NOLINTX: not ours
    if (pos < text.size() && text[pos] == '(') {
      const size_t close = text.find(')', pos);
      if (close == std::string_view::npos) continue; // malformed: suppresses nothing
      directive.checks = std::string(text.substr(pos + 1, close - pos - 1));
    }
    directive.line = comment.line +
                     static_cast<uint32_t>(std::count(text.begin(), text.begin() + at, '\n'));
    found.push_back(std::move(directive));
  }
  return found;
}

void suppress(Suppressions& out, uint32_t line, const std::vector<std::string>* codes) {
  auto [entry, inserted] = out.byLine.try_emplace(line);
  if (codes == nullptr) {
    entry->second.clear(); // every rule
  } else if (inserted || !entry->second.empty()) {
    for (const std::string& code : *codes) {
      if (std::find(entry->second.begin(), entry->second.end(), code) == entry->second.end()) {
        entry->second.push_back(code);
      }
    }
  }
}

} // namespace

bool globMatches(std::string_view glob, std::string_view text) {
  // Iterative wildcard match with backtracking to the last star.
  size_t g = 0;
  size_t t = 0;
  size_t star = std::string_view::npos;
  size_t mark = 0;
  while (t < text.size()) {
    if (g < glob.size() && glob[g] == '*') {
      star = g++;
      mark = t;
    } else if (g < glob.size() && glob[g] == text[t]) {
      ++g;
      ++t;
    } else if (star != std::string_view::npos) {
      g = star + 1;
      t = ++mark;
    } else {
      return false;
    }
  }
  while (g < glob.size() && glob[g] == '*') ++g;
  return g == glob.size();
}

std::vector<std::string> selectedCodes(std::string_view checkList,
                                       const std::vector<RuleName>& rules) {
  // clang-tidy's GlobList: comma separated, `-` negates, the last glob that matches decides.
  std::vector<std::pair<bool, std::string>> globs;
  size_t start = 0;
  while (start <= checkList.size()) {
    size_t comma = checkList.find(',', start);
    if (comma == std::string_view::npos) comma = checkList.size();
    std::string_view item = trim(checkList.substr(start, comma - start));
    start = comma + 1;
    if (item.empty()) continue;
    const bool positive = item.front() != '-';
    if (!positive) item = trim(item.substr(1));
    globs.emplace_back(positive, std::string(item));
  }
  std::vector<std::string> codes;
  for (const RuleName& rule : rules) {
    const std::string check = "gradlint-" + rule.name;
    const std::string lowerCode = asciiLower(rule.code);
    bool selected = false;
    for (auto it = globs.rbegin(); it != globs.rend(); ++it) {
      const std::string& glob = it->second;
      if (globMatches(glob, check) || globMatches(glob, rule.code) ||
          globMatches(glob, lowerCode)) {
        selected = it->first;
        break;
      }
    }
    if (selected) codes.push_back(rule.code);
  }
  return codes;
}

void collectNolint(std::string_view source, const std::vector<RuleName>& rules,
                   Suppressions& out) {
  if (source.find("NOLINT") == std::string_view::npos) return;
  struct Open {
    std::optional<std::string> checks;
    uint32_t line;
  };
  std::vector<Open> open;
  auto apply = [&](uint32_t first, uint32_t last, const std::optional<std::string>& checks) {
    if (!checks) {
      for (uint32_t line = first; line <= last; ++line) suppress(out, line, nullptr);
      return;
    }
    const std::vector<std::string> codes = selectedCodes(*checks, rules);
    if (codes.empty()) return; // names none of our rules
    for (uint32_t line = first; line <= last; ++line) suppress(out, line, &codes);
  };
  for (const Comment& comment : scanComments(source)) {
    for (const Found& found : directives(comment)) {
      switch (found.directive) {
      case Directive::Line: apply(found.line, found.line, found.checks); break;
      case Directive::NextLine: apply(found.line + 1, found.line + 1, found.checks); break;
      case Directive::Begin: open.push_back({found.checks, found.line}); break;
      case Directive::End: {
        // Closes the latest BEGIN with the same list; an END with no BEGIN does nothing.
        auto match = std::find_if(open.rbegin(), open.rend(),
                                  [&](const Open& o) { return o.checks == found.checks; });
        if (match == open.rend()) break;
        apply(match->line, found.line, match->checks);
        open.erase(std::next(match).base());
        break;
      }
      }
    }
  }
  // A BEGIN never closed suppresses nothing, as in clang-tidy (which reports it).
}

} // namespace gradlint::cpp
