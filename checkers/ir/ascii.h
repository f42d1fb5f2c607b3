// ASCII case mapping for the names, codes, comments and headers gradlint compares: only A-Z and
// a-z change, whatever the locale (std::tolower follows the C locale, which a host program may
// change), and the bytes of UTF-8 text pass through untouched.
#pragma once

#include <string>
#include <string_view>

namespace gradlint {

constexpr char asciiLower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c + 32) : c; }
constexpr char asciiUpper(char c) { return c >= 'a' && c <= 'z' ? static_cast<char>(c - 32) : c; }

inline std::string asciiLower(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = asciiLower(c);
  return out;
}

inline std::string asciiUpper(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = asciiUpper(c);
  return out;
}

// Equal but for ASCII case: `Content-Length` and `content-length`.
constexpr bool asciiIEquals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (asciiLower(a[i]) != asciiLower(b[i])) return false;
  }
  return true;
}

} // namespace gradlint
