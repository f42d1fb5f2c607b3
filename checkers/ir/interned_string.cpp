#include "checkers/ir/interned_string.h"

#include <mutex>
#include <shared_mutex>
#include <unordered_set>

namespace gradlint::ir {

namespace {

struct Pool {
  std::shared_mutex lock;
  // Transparent lookup: a string_view finds its text without making a std::string.
  struct Hash {
    using is_transparent = void;
    size_t operator()(std::string_view text) const { return std::hash<std::string_view>{}(text); }
  };
  std::unordered_set<std::string, Hash, std::equal_to<>> texts; // nodes stay put
};

Pool& pool() {
  static Pool* const instance = new Pool(); // never destroyed: handles outlive static objects
  return *instance;
}

} // namespace

const std::string* InternedString::intern(std::string_view text) {
  if (text.empty()) return &emptyText();
  Pool& shared = pool();
  {
    const std::shared_lock<std::shared_mutex> reading(shared.lock);
    const auto found = shared.texts.find(text);
    if (found != shared.texts.end()) return &*found;
  }
  const std::unique_lock<std::shared_mutex> writing(shared.lock);
  return &*shared.texts.emplace(text).first;
}

const std::string& InternedString::emptyText() {
  static const std::string* const empty = new std::string();
  return *empty;
}

} // namespace gradlint::ir
