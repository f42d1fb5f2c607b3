// Suppression comments, collected by a frontend and applied to any rule's diagnostics.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace gradlint {

struct Suppressions {
  bool wholeFile = false;              // `# gradlint: noqa`
  std::vector<std::string> fileCodes;  // `# gradlint: noqa: GL103`
  // 0-based line -> codes; an empty list suppresses every code on that line (bare `# noqa`).
  std::unordered_map<uint32_t, std::vector<std::string>> byLine;

  bool suppresses(uint32_t line, std::string_view code) const;
  // Parses one comment's text; returns false when it is not a suppression.
  bool addComment(uint32_t line, std::string_view comment);
};

} // namespace gradlint
