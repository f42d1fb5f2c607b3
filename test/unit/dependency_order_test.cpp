// dependencyOrder: each strongly connected component after every component it reaches.
#include "program/dependency_order.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

namespace gradlint {
namespace {

TEST(DependencyOrder, ComponentsComeAfterWhatTheyReach) {
  // 0 -> 1 -> 2, 2 <-> 3 (a cycle), 4 alone.
  const std::vector<std::vector<size_t>> edges = {{1}, {2}, {3}, {2}, {}};
  const DependencyOrder result = dependencyOrder(edges);
  ASSERT_EQ(result.order.size(), 5u);
  EXPECT_EQ(result.ends, (std::vector<size_t>{2, 3, 4, 5}));
  auto position = [&](size_t node) {
    return std::find(result.order.begin(), result.order.end(), node) - result.order.begin();
  };
  EXPECT_LT(position(2), 2); // the cycle first, together
  EXPECT_LT(position(3), 2);
  EXPECT_EQ(position(1), 2);
  EXPECT_EQ(position(0), 3);
  EXPECT_EQ(position(4), 4);
}

TEST(DependencyOrder, ALongChainDoesNotDeepenTheStack) {
  const size_t length = 200000;
  std::vector<std::vector<size_t>> edges(length);
  for (size_t i = 0; i + 1 < length; ++i) edges[i].push_back(i + 1);
  const DependencyOrder result = dependencyOrder(edges);
  ASSERT_EQ(result.order.size(), length);
  EXPECT_EQ(result.order.front(), length - 1);
  EXPECT_EQ(result.order.back(), 0u);
  EXPECT_EQ(result.ends.size(), length);
}

} // namespace
} // namespace gradlint
