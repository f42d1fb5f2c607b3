// The strongly connected components of a graph (adjacency lists of node indices), each after
// every component it reaches: for import edges, a module comes after the modules it imports,
// and the members of an import cycle come together. Tarjan's algorithm, iteratively: an import
// chain thousands of modules long does not deepen the stack.
#pragma once

#include <cstddef>
#include <vector>

namespace gradlint {

struct DependencyOrder {
  std::vector<size_t> order; // every node, component by component
  std::vector<size_t> ends;  // where each component ends in `order`, in order
};

DependencyOrder dependencyOrder(const std::vector<std::vector<size_t>>& edges);

} // namespace gradlint
