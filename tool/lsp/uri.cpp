#include "tool/lsp/uri.h"

#include "checkers/ir/ascii.h"

namespace gradlint::lsp {
namespace {

int hexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

} // namespace

std::string pathFromUri(std::string_view uri) {
  constexpr std::string_view kScheme = "file://";
  if (!asciiIEquals(uri.substr(0, kScheme.size()), kScheme)) return "";
  std::string_view rest = uri.substr(kScheme.size());
  // file://host/path: only an empty host or localhost names this machine.
  const size_t slash = rest.find('/');
  if (slash == std::string_view::npos) return "";
  const std::string_view host = rest.substr(0, slash);
  if (!host.empty() && host != "localhost") return "";
  rest = rest.substr(slash);
  std::string path;
  path.reserve(rest.size());
  for (size_t i = 0; i < rest.size(); ++i) {
    if (rest[i] == '?' || rest[i] == '#') break;
    if (rest[i] == '%' && i + 2 < rest.size() && hexValue(rest[i + 1]) >= 0 &&
        hexValue(rest[i + 2]) >= 0) {
      const char decoded = static_cast<char>(hexValue(rest[i + 1]) * 16 + hexValue(rest[i + 2]));
      if (decoded == '\0') return ""; // a NUL cannot be in a path
      path.push_back(decoded);
      i += 2;
    } else {
      path.push_back(rest[i]);
    }
  }
  return path;
}

std::string uriFromPath(std::string_view path) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string uri = "file://";
  for (const char c : path) {
    const auto byte = static_cast<unsigned char>(c);
    if (std::isalnum(byte) || c == '/' || c == '-' || c == '_' || c == '.' || c == '~') {
      uri.push_back(c);
    } else {
      uri.push_back('%');
      uri.push_back(kHex[byte >> 4]);
      uri.push_back(kHex[byte & 0xF]);
    }
  }
  return uri;
}

} // namespace gradlint::lsp
