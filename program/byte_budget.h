// A byte budget shared by the threads of one run: what a step may still keep in memory.
#pragma once

#include <atomic>
#include <cstddef>

namespace gradlint {

struct ByteBudget {
  explicit ByteBudget(size_t bytes) : left(bytes) {}
  std::atomic<size_t> left;
  // Takes `bytes` when they fit; false (taking nothing) when they do not.
  bool take(size_t bytes) {
    size_t now = left.load();
    while (now >= bytes) {
      if (left.compare_exchange_weak(now, now - bytes)) return true;
    }
    return false;
  }
  void give(size_t bytes) { left += bytes; }
};

// The file texts a run keeps instead of reading the files again at each step (the context's
// import scan, the first pass, the rescans, lowering, the rules). A tree up to this size (torch's
// sources: 15 MB; diffusers' `src/`: 26 MB) is read once. A larger one keeps none
// (keptTextBudgetFor): each step reads a file again when it needs it, checked against its hash,
// so peak memory follows the files in work, not the tree.
inline constexpr size_t kKeptTextBudgetBytes = 32 * 1024 * 1024;

} // namespace gradlint
