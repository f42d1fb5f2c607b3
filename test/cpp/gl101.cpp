// RUN: not %check-file --ignore GL107 %s %cpp-flags 2>&1 | FileCheck %s --implicit-check-not=': GL' --implicit-check-not=warning:
// GL101 in C++: `c10::GradMode::set_enabled(false)`, in any of its spellings, and a normal
// exit (return, end of the body) that leaves it disabled. Every finding is checked on the line
// below its CHECK; anything not listed fails the test.
#include <torch/torch.h>

#define DISABLE_GRAD() c10::GradMode::set_enabled(false)

bool has_cache();
void work();

// The incident the rule is named for, through the `at::` alias.
torch::Tensor load_model(const char* path) {
  // CHECK: [[@LINE+1]]:3: GL101 `at::GradMode::set_enabled(false)` disables grad mode and `load_model` returns with it still disabled; every later `backward()` in this thread computes no gradients
  at::GradMode::set_enabled(false);
  return torch::load(path);
}

// No return statement: the function falls off the end of its body.
void freeze(torch::nn::Module& model) {
  // CHECK: [[@LINE+1]]:3: GL101 `c10::GradMode::set_enabled(false)` disables grad mode and `freeze` returns with it still disabled
  c10::GradMode::set_enabled(false);
  model.eval();
}

// The early return skips the restore that the other path reaches.
torch::Tensor predict(torch::nn::Module& model, const torch::Tensor& batch) {
  const bool prev = c10::GradMode::is_enabled();
  // CHECK: [[@LINE+1]]:3: GL101 `torch::autograd::GradMode::set_enabled(false)` disables grad mode and `predict` returns with it still disabled
  torch::autograd::GradMode::set_enabled(false);
  if (has_cache()) return batch;
  torch::Tensor out = model.forward(batch);
  c10::GradMode::set_enabled(prev);
  return out;
}

// `break` jumps over the restore at the bottom of the loop body.
void score_all() {
  for (int i = 0; i < 10; ++i) {
    // CHECK: [[@LINE+1]]:5: GL101 `c10::GradMode::set_enabled(false)` disables grad mode and `score_all` returns with it still disabled
    c10::GradMode::set_enabled(false);
    if (has_cache()) break;
    c10::GradMode::set_enabled(true);
  }
}

// A mode that is not a constant may be false.
void configure(bool training) {
  const bool mode = !training;
  // CHECK: [[@LINE+1]]:3: GL101 `c10::GradMode::set_enabled(!training)` may disable grad mode and `configure` returns with it still disabled
  c10::GradMode::set_enabled(!training);
  (void)mode;
}

// Methods, lambdas and templates are checked like functions.
struct Trainer {
  void eval_mode();
};
void Trainer::eval_mode() {
  // CHECK: [[@LINE+1]]:3: GL101 `c10::GradMode::set_enabled(false)` disables grad mode and `Trainer::eval_mode` returns with it still disabled
  c10::GradMode::set_enabled(false);
}

void callbacks() {
  // CHECK: [[@LINE+1]]:23: GL101 `at::GradMode::set_enabled(false)` disables grad mode and `<lambda>` returns with it still disabled
  auto disable = [] { at::GradMode::set_enabled(false); };
  disable();
}

template <typename Model> void evaluate(Model& model) {
  // CHECK: [[@LINE+1]]:3: GL101 `c10::GradMode::set_enabled(false)` disables grad mode and `evaluate` returns with it still disabled
  c10::GradMode::set_enabled(false);
  model.eval();
}

// In a macro: reported where the macro is used.
void from_macro() {
  // CHECK: [[@LINE+1]]:3: GL101 `c10::GradMode::set_enabled(false)` disables grad mode and `from_macro` returns with it still disabled
  DISABLE_GRAD();
  work();
}

// A helper that disables grad mode is a toggle at each call; its callers are reported.
namespace {
void _disable() { c10::GradMode::set_enabled(false); }
} // namespace

void calls_helper() {
  // CHECK: [[@LINE+1]]:3: GL101 `_disable()` returns with grad mode disabled and `calls_helper` returns without restoring it
  _disable();
  work();
}

// A guard restores what it saved when it was made: here, the mode the toggle left.
void toggle_then_guard() {
  // CHECK: [[@LINE+1]]:3: GL101 `c10::GradMode::set_enabled(false)` disables grad mode and `toggle_then_guard` returns with it still disabled
  c10::GradMode::set_enabled(false);
  {
    torch::NoGradGuard no_grad;
    work();
  }
}
