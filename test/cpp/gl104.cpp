// RUN: not %check-file %s %cpp-flags 2>&1 | FileCheck %s --implicit-check-not=': GL' --implicit-check-not=warning:
// GL104 in C++: every normal path restores grad mode, but a call between the toggle and the
// restore can throw, and nothing on the way out (no destructor, no handler) restores it.
#include <torch/torch.h>

void work();

// The classic: save, toggle, call, restore, all in straight-line code.
torch::Tensor evaluate(torch::nn::Module& model, const torch::Tensor& batch) {
  const bool prev = c10::GradMode::is_enabled();
  // CHECK: [[@LINE+1]]:3: GL104 `c10::GradMode::set_enabled(false)` disables grad mode and `evaluate` restores it only on the normal path; an exception before the restore leaves gradients off for the rest of the thread
  c10::GradMode::set_enabled(false);
  torch::Tensor out = model.forward(batch);
  c10::GradMode::set_enabled(prev);
  return out;
}

// The handler catches c10::Error only: any other exception still escapes with grad mode off.
void catches_some() {
  const bool prev = at::GradMode::is_enabled();
  // CHECK: [[@LINE+1]]:3: GL104 `at::GradMode::set_enabled(false)` disables grad mode and `catches_some` restores it only on the normal path
  at::GradMode::set_enabled(false);
  try {
    work();
  } catch (const c10::Error&) {
    at::GradMode::set_enabled(prev);
    throw;
  }
  at::GradMode::set_enabled(prev);
}

// A handler that swallows the exception before the restore: fine. One that rethrows first
// skips it.
void rethrows() {
  const bool prev = c10::GradMode::is_enabled();
  // CHECK: [[@LINE+1]]:3: GL104 `c10::GradMode::set_enabled(false)` disables grad mode and `rethrows` restores it only on the normal path
  c10::GradMode::set_enabled(false);
  try {
    work();
  } catch (...) {
    throw;
  }
  c10::GradMode::set_enabled(prev);
}

// A helper that disables grad mode, restored by a plain call.
void enter_no_grad() { c10::GradMode::set_enabled(false); }
// CHECK: [[@LINE-1]]:24: GL101 `c10::GradMode::set_enabled(false)` disables grad mode and `enter_no_grad` returns with it still disabled

void helper_pair() {
  const bool prev = c10::GradMode::is_enabled();
  // CHECK: [[@LINE+1]]:3: GL104 `enter_no_grad()` disables grad mode and `helper_pair` restores it only on the normal path
  enter_no_grad();
  work();
  c10::GradMode::set_enabled(prev);
}

// A throw of our own between toggle and restore.
void throws(bool bad) {
  const bool prev = c10::GradMode::is_enabled();
  // CHECK: [[@LINE+1]]:3: GL104 `c10::GradMode::set_enabled(false)` disables grad mode and `throws` restores it only on the normal path
  c10::GradMode::set_enabled(false);
  if (bad) throw c10::Error();
  c10::GradMode::set_enabled(prev);
}
