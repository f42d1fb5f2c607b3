// A string kept once per process: the names lowered events carry (callees, variables, attribute
// paths) repeat across nodes, units and files, and a run keeps its lowered units until its rules
// are done. A handle is one pointer; it reads as the std::string it stands for.
// Nothing leaves the pool. It holds the distinct names of the code lowered, plus one context
// slot (contextSlot) per byte offset a `with` item was seen at, so in the language server it
// grows only with new names and with-offsets that edits make (flat over 600 edits of a diffusers
// pipeline: bench/lsp_latency.py prints the server's memory).
#pragma once

#include <fmt/format.h>

#include <cstddef>
#include <string>
#include <string_view>

namespace gradlint::ir {

class InternedString {
public:
  // Implicit both ways: fields that were std::string are read and assigned as before.
  InternedString() : text_(&emptyText()) {}
  InternedString(std::string_view text) : text_(intern(text)) {}
  InternedString(const std::string& text) : InternedString(std::string_view(text)) {}
  InternedString(const char* text) : InternedString(std::string_view(text)) {}

  const std::string& str() const { return *text_; }
  operator const std::string&() const { return *text_; }
  operator std::string_view() const { return *text_; }

  bool empty() const { return text_->empty(); }
  size_t size() const { return text_->size(); }
  const char* data() const { return text_->data(); }
  void clear() { text_ = &emptyText(); }
  size_t find(std::string_view what, size_t from = 0) const { return text_->find(what, from); }
  size_t find(char what, size_t from = 0) const { return text_->find(what, from); }
  size_t rfind(std::string_view what, size_t from = std::string::npos) const {
    return text_->rfind(what, from);
  }
  size_t rfind(char what, size_t from = std::string::npos) const {
    return text_->rfind(what, from);
  }
  std::string substr(size_t from, size_t count = std::string::npos) const {
    return text_->substr(from, count);
  }
  bool starts_with(std::string_view prefix) const { return text_->starts_with(prefix); }
  bool ends_with(std::string_view suffix) const { return text_->ends_with(suffix); }

  // Two pools (a checker module loaded apart from the program) may hold the same text.
  friend bool operator==(const InternedString& a, const InternedString& b) {
    return a.text_ == b.text_ || *a.text_ == *b.text_;
  }
  friend bool operator==(const InternedString& a, std::string_view b) { return *a.text_ == b; }
  friend bool operator==(const InternedString& a, const std::string& b) { return *a.text_ == b; }
  friend bool operator==(const InternedString& a, const char* b) {
    return *a.text_ == std::string_view(b);
  }
  friend auto operator<=>(const InternedString& a, const InternedString& b) {
    return a.str() <=> b.str();
  }
  // Exact matches, so that comparing with a std::string does not intern it.
  friend auto operator<=>(const InternedString& a, const std::string& b) { return a.str() <=> b; }
  friend auto operator<=>(const InternedString& a, std::string_view b) {
    return std::string_view(a) <=> b;
  }

private:
  // The pool's copy of `text`; it lives as long as the process. Safe from any thread.
  static const std::string* intern(std::string_view text);
  static const std::string& emptyText();

  const std::string* text_;
};

} // namespace gradlint::ir

template <>
struct fmt::formatter<gradlint::ir::InternedString> : fmt::formatter<std::string_view> {
  auto format(const gradlint::ir::InternedString& text, format_context& context) const {
    return fmt::formatter<std::string_view>::format(std::string_view(text), context);
  }
};
