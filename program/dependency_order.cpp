#include "program/dependency_order.h"

#include <algorithm>
#include <cstdint>
#include <utility>

namespace gradlint {

DependencyOrder dependencyOrder(const std::vector<std::vector<size_t>>& edges) {
  const size_t count = edges.size();
  constexpr size_t kUnvisited = SIZE_MAX;
  std::vector<size_t> index(count, kUnvisited), low(count, 0);
  std::vector<char> onStack(count, 0);
  std::vector<size_t> stack;
  std::vector<std::pair<size_t, size_t>> frames; // (node, next edge to follow)
  DependencyOrder result;
  result.order.reserve(count);
  size_t counter = 0;
  auto visit = [&](size_t node) {
    index[node] = low[node] = counter++;
    stack.push_back(node);
    onStack[node] = 1;
    frames.emplace_back(node, 0);
  };
  for (size_t start = 0; start < count; ++start) {
    if (index[start] != kUnvisited) continue;
    visit(start);
    while (!frames.empty()) {
      const size_t node = frames.back().first;
      if (frames.back().second < edges[node].size()) {
        const size_t target = edges[node][frames.back().second++];
        if (index[target] == kUnvisited) {
          visit(target);
        } else if (onStack[target]) {
          low[node] = std::min(low[node], index[target]);
        }
        continue;
      }
      frames.pop_back();
      if (!frames.empty()) {
        low[frames.back().first] = std::min(low[frames.back().first], low[node]);
      }
      if (low[node] != index[node]) continue;
      while (true) {
        const size_t member = stack.back();
        stack.pop_back();
        onStack[member] = 0;
        result.order.push_back(member);
        if (member == node) break;
      }
      result.ends.push_back(result.order.size());
    }
  }
  return result;
}

} // namespace gradlint
