// Names and attribute paths as the IR spells them (`model`, `self.model.backbone`), and the
// small sorted sets the analyses keep them in.
#pragma once

#include <algorithm>
#include <string_view>
#include <vector>

namespace gradlint::ir {

// `path` is an attribute path below `base`: `self.model` below `self`, not `selfish`.
inline bool isAttributeOf(std::string_view path, std::string_view base) {
  return path.size() > base.size() && path.starts_with(base) && path[base.size()] == '.';
}

// `path` is `var` or an attribute path below it: what rebinding `var` makes stale.
inline bool isPathUnder(std::string_view path, std::string_view var) {
  return path == var || isAttributeOf(path, var);
}

// Inserts `value` into the sorted `set` unless it is there; true when it was inserted.
template <typename T> bool insertSorted(std::vector<T>& set, T value) {
  auto it = std::lower_bound(set.begin(), set.end(), value);
  if (it != set.end() && *it == value) return false;
  set.insert(it, std::move(value));
  return true;
}

} // namespace gradlint::ir
