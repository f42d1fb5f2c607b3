// RUN: %check-file %s %cpp-flags 2>&1 | count 0
// Guards made properly, and function declarations that mean it. No GL106 here.
#include <torch/torch.h>

void work();

// A factory declared at namespace scope is a function on purpose.
torch::NoGradGuard make_guard();

void fine() {
  torch::NoGradGuard a;
  torch::NoGradGuard b{};
  c10::AutoGradMode c(false);
  c10::InferenceMode d{true};
  // `(void)` says a function is meant.
  torch::NoGradGuard factory(void);
  // Not a guard type.
  int count();
  work();
}
