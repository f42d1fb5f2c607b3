#include "checkers/ir/suppressions.h"

#include "checkers/ir/ascii.h"

#include <algorithm>
#include <cctype>

namespace gradlint {

bool Suppressions::suppresses(uint32_t line, std::string_view code) const {
  if (wholeFile) return true;
  if (std::any_of(fileCodes.begin(), fileCodes.end(),
                  [&](const std::string& listed) { return code.starts_with(listed); })) {
    return true;
  }
  auto it = byLine.find(line);
  if (it == byLine.end()) return false;
  if (it->second.empty()) return true;
  return std::any_of(it->second.begin(), it->second.end(),
                     [&](const std::string& listed) { return code.starts_with(listed); });
}

bool Suppressions::addComment(uint32_t line, std::string_view comment) {
  const std::string text = asciiLower(comment);
  // The file-level form must open the comment (`# gradlint: noqa`), so prose that mentions
  // it does not silence a file.
  const size_t body = text.find_first_not_of("# \t");
  const bool fileLevel =
      body != std::string::npos && text.compare(body, 14, "gradlint: noqa") == 0 &&
      (body + 14 == text.size() || text[body + 14] == ':' || text[body + 14] == ' ');
  const size_t at = text.find("noqa");
  if (at == std::string::npos) return false;
  // Only `# noqa` and `# noqa: CODES` count: "noqa" inside prose does not.
  size_t before = at;
  while (before > 0 && (text[before - 1] == ' ' || text[before - 1] == '\t')) --before;
  if (!fileLevel && (before == 0 || text[before - 1] != '#')) return false;
  size_t pos = at + 4;
  std::vector<std::string> codes;
  if (pos < text.size() && text[pos] == ':') {
    // Codes like GL101 separated by commas or spaces; anything else ends the list.
    ++pos;
    while (pos < comment.size()) {
      while (pos < comment.size() && (comment[pos] == ' ' || comment[pos] == ',')) ++pos;
      size_t end = pos;
      while (end < comment.size() && std::isalpha(static_cast<unsigned char>(comment[end]))) ++end;
      const size_t digits = end;
      while (end < comment.size() && std::isdigit(static_cast<unsigned char>(comment[end]))) ++end;
      if (digits == pos || end == digits) break;
      codes.push_back(asciiUpper(comment.substr(pos, end - pos)));
      pos = end;
    }
    if (codes.empty()) return false; // `# noqa:` with no code is malformed: suppress nothing
  } else if (pos < text.size() && std::isalnum(static_cast<unsigned char>(text[pos]))) {
    return false; // "noqaX"
  }
  if (fileLevel) {
    if (codes.empty()) {
      wholeFile = true;
    } else {
      fileCodes.insert(fileCodes.end(), codes.begin(), codes.end());
    }
    return true;
  }
  auto [entry, inserted] = byLine.try_emplace(line);
  if (codes.empty()) {
    entry->second.clear();
  } else if (inserted || !entry->second.empty()) {
    entry->second.insert(entry->second.end(), codes.begin(), codes.end());
  }
  return true;
}

} // namespace gradlint
