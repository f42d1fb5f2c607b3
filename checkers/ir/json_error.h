// JSON errors as a person reads them. nlohmann's messages start with a tag such as
// `[json.exception.parse_error.101]`, which names the library's internals, not the problem; the
// rest says what is wrong and where (`parse error at line 3, column 5: ...`).
#pragma once

#include <string>
#include <string_view>

namespace gradlint {

inline std::string jsonErrorText(std::string_view what) {
  constexpr std::string_view kTag = "[json.exception.";
  if (what.starts_with(kTag)) {
    const size_t end = what.find("] ");
    if (end != std::string_view::npos) what.remove_prefix(end + 2);
  }
  return std::string(what);
}

} // namespace gradlint
