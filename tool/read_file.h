// Reading a whole file into memory: one read(2) into a buffer of the file's size, not a stream
// copied twice (a warm run reads every file of the tree and does little else).
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

namespace gradlint {

// Returns false with `error` ("cannot read: REASON") when the file cannot be opened or read.
bool readWholeFile(const std::string& path, std::string& out, std::string& error);

// Writes `text` to a name no other process uses beside `path`, then renames it over `path`:
// readers see the old file or the new one, whole. Returns false with `error` (the reason).
bool replaceFile(const std::filesystem::path& path, std::string_view text, std::string& error);

// Whether `path` is a folder / a regular file (links followed); false when it cannot be looked at.
inline bool isFolder(const std::filesystem::path& path) {
  std::error_code ec;
  return std::filesystem::is_directory(path, ec);
}
inline bool isFile(const std::filesystem::path& path) {
  std::error_code ec;
  return std::filesystem::is_regular_file(path, ec);
}

} // namespace gradlint
