// RUN: not %check-file --ignore GL107 %s %cpp-flags 2>&1 | FileCheck %s --implicit-check-not=': GL' --implicit-check-not=warning:
// Control flow the CFG must get right: goto, switch, nested try blocks, a function-try-block,
// guards in conditions and loops, and exceptions thrown from a catch handler.
#include <torch/torch.h>

void work();
bool flag();

// goto past the restore.
void jumps() {
  // CHECK: [[@LINE+1]]:3: GL101 `c10::GradMode::set_enabled(false)` disables grad mode and `jumps` returns
  c10::GradMode::set_enabled(false);
  if (flag()) goto done;
  c10::GradMode::set_enabled(true);
done:
  return;
}

// A switch case that forgets to restore.
void cases(int kind) {
  switch (kind) {
  case 0:
    // CHECK: [[@LINE+1]]:5: GL101 `c10::GradMode::set_enabled(false)` disables grad mode and `cases` returns
    c10::GradMode::set_enabled(false);
    break;
  case 1: {
    torch::NoGradGuard no_grad;
    work();
    break;
  }
  default:
    break;
  }
}

// An exception thrown in a handler skips the outer restore; the inner try catches work().
void nested() {
  const bool prev = c10::GradMode::is_enabled();
  // CHECK: [[@LINE+1]]:3: GL104 `c10::GradMode::set_enabled(false)` disables grad mode and `nested` restores it only on the normal path
  c10::GradMode::set_enabled(false);
  try {
    try {
      work();
    } catch (...) {
      throw c10::Error();
    }
  } catch (const c10::Error&) {
  }
  c10::GradMode::set_enabled(prev);
}

// Guards in conditions, loops and if-initialisers restore on every iteration and path.
void scoped() {
  for (int i = 0; i < 3; ++i) {
    torch::NoGradGuard no_grad;
    if (flag()) continue;
    work();
  }
  if (c10::AutoGradMode mode(false); flag()) {
    work();
    return;
  }
  while (flag()) {
    c10::InferenceMode guard;
    if (flag()) break;
  }
}

// A function-try-block: the handler runs after the guard is gone.
void function_try() try {
  torch::NoGradGuard no_grad;
  work();
} catch (...) {
  work();
}

// Recursion and a leak only on the recursive path.
void recurse(int depth) {
  if (depth == 0) return;
  // CHECK: [[@LINE+1]]:3: GL101 `c10::GradMode::set_enabled(false)` disables grad mode and `recurse` returns
  c10::GradMode::set_enabled(false);
  // The recursive call is the same leak, not a second one: reported once, at the toggle.
  recurse(depth - 1);
}

// A [[noreturn]] call that throws (like TORCH_CHECK's failure path) skips the restore.
[[noreturn]] void fail(const char* message);
void checked(bool ok) {
  const bool prev = c10::GradMode::is_enabled();
  // CHECK: [[@LINE+1]]:3: GL104 `c10::GradMode::set_enabled(false)` disables grad mode and `checked` restores it only on the normal path
  c10::GradMode::set_enabled(false);
  if (!ok) fail("bad input");
  c10::GradMode::set_enabled(prev);
}

// Variadic templates and generic lambdas are read as written.
template <typename... Args> void forward_all(Args&&... args) {
  torch::NoGradGuard no_grad;
  (args(), ...);
}
auto generic = [](auto& model) {
  // CHECK: [[@LINE+1]]:3: GL101 `c10::GradMode::set_enabled(false)` disables grad mode and `<lambda>` returns
  c10::GradMode::set_enabled(false);
  model.eval();
};

// A range-for over a dependent range: Clang has no CFG for the template as written, so its
// paths are read from an instantiation in this file. One never instantiated is read as
// written, its range-for as a loop that runs the body any number of times.
template <typename Range> void each(const Range& items) {
  // CHECK: [[@LINE+1]]:3: GL101 `c10::GradMode::set_enabled(false)` disables grad mode and `each` returns
  c10::GradMode::set_enabled(false);
  for (const auto& item : items) (void)item;
}
void use_each() {
  const int items[3] = {1, 2, 3};
  // CHECK: [[@LINE+1]]:3: GL101 `each()` returns with grad mode disabled and `use_each` returns without restoring it
  each(items);
}
template <typename Range> void never_used(const Range& items) {
  // CHECK: [[@LINE+1]]:3: GL101 `c10::GradMode::set_enabled(false)` disables grad mode and `never_used` returns
  c10::GradMode::set_enabled(false);
  for (const auto& item : items) (void)item;
  // CHECK: [[@LINE+1]]:3: GL105 `torch::NoGradGuard()` creates an unnamed
  torch::NoGradGuard();
}
