// file:// URIs <-> file system paths (RFC 8089 as editors write them: percent-encoded UTF-8).
#pragma once

#include <string>
#include <string_view>

namespace gradlint::lsp {

// The path of a file:// URI, or "" for any other scheme (untitled:, ...) or a malformed one.
std::string pathFromUri(std::string_view uri);
// A file:// URI for an absolute path.
std::string uriFromPath(std::string_view path);

} // namespace gradlint::lsp
