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

// The lines of a text (a file read whole), without their '\n', for a range-for:
// `for (std::string_view line : Lines(text))`. A last line without '\n' counts too.
class Lines {
public:
  explicit Lines(std::string_view text) : text_(text) {}

  class iterator {
  public:
    iterator(std::string_view text, size_t start) : text_(text), start_(start) { findEnd(); }
    std::string_view operator*() const { return text_.substr(start_, end_ - start_); }
    iterator& operator++() {
      start_ = end_ + 1;
      findEnd();
      return *this;
    }
    bool operator!=(const iterator& other) const { return start_ != other.start_; }

  private:
    void findEnd() {
      if (start_ >= text_.size()) {
        start_ = end_ = text_.size();
        return;
      }
      end_ = text_.find('\n', start_);
      if (end_ == std::string_view::npos) end_ = text_.size();
    }
    std::string_view text_;
    size_t start_;
    size_t end_ = 0;
  };

  iterator begin() const { return {text_, 0}; }
  iterator end() const { return {text_, text_.size()}; }

private:
  std::string_view text_;
};

} // namespace gradlint
