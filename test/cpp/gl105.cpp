// RUN: not %check-file %s %cpp-flags 2>&1 | FileCheck %s --implicit-check-not=': GL' --implicit-check-not=warning:
// GL105 in C++: a guard created as an unnamed temporary is destroyed at the end of its
// statement, so it guards nothing.
#include <torch/torch.h>

#define NO_GRAD() torch::NoGradGuard()

void work();

void temporaries() {
  // CHECK: [[@LINE+1]]:3: GL105 `torch::NoGradGuard()` creates an unnamed `torch::NoGradGuard` that is destroyed at the end of this statement, so grad mode is unchanged for the code below
  torch::NoGradGuard();
  // CHECK: [[@LINE+1]]:3: GL105 `at::NoGradGuard{}` creates an unnamed `at::NoGradGuard` that is destroyed at the end of this statement
  at::NoGradGuard{};
  // CHECK: [[@LINE+1]]:3: GL105 `c10::AutoGradMode(false)` creates an unnamed `c10::AutoGradMode` that is destroyed at the end of this statement
  c10::AutoGradMode(false);
  // CHECK: [[@LINE+1]]:3: GL105 `torch::AutoGradMode(true)` creates an unnamed `torch::AutoGradMode`
  torch::AutoGradMode(true);
  // CHECK: [[@LINE+1]]:3: GL105 `c10::InferenceMode()` creates an unnamed `c10::InferenceMode`
  c10::InferenceMode();
  // CHECK: [[@LINE+1]]:3: GL105 `at::AutoDispatchBelowADInplaceOrView()` creates an unnamed `at::AutoDispatchBelowADInplaceOrView` that is destroyed at the end of this statement, so the dispatch keys are unchanged for the code below
  at::AutoDispatchBelowADInplaceOrView();
  // CHECK: [[@LINE+1]]:3: GL105 `at::AutoDispatchBelowAutograd{}` creates an unnamed `at::AutoDispatchBelowAutograd`
  at::AutoDispatchBelowAutograd{};
  work();
}

// As the last statement of a block, under `if`, after a cast to void.
void positions(bool flag) {
  work();
  {
    // CHECK: [[@LINE+1]]:5: GL105 `torch::NoGradGuard()` creates an unnamed
    torch::NoGradGuard();
  }
  if (flag)
    // CHECK: [[@LINE+1]]:5: GL105 `c10::AutoGradMode(false)` creates an unnamed
    c10::AutoGradMode(false);
  // CHECK: [[@LINE+1]]:9: GL105 `torch::NoGradGuard()` creates an unnamed
  (void)torch::NoGradGuard();
}

// In a macro: reported at the macro's use.
void from_macro() {
  // CHECK: [[@LINE+1]]:3: GL105 `NO_GRAD()` creates an unnamed `c10::NoGradGuard` that is destroyed at the end of this statement
  NO_GRAD();
  work();
}

// A class derived from a guard, in a lambda.
struct MyGuard : c10::NoGradGuard {};
void in_lambda() {
  auto run = [] {
    // CHECK: [[@LINE+1]]:5: GL105 `MyGuard()` creates an unnamed `MyGuard` that is destroyed
    MyGuard();
    work();
  };
  run();
}

// An aggregate derived from a guard, list-initialised: an unnamed temporary all the same.
struct EvalGuard : torch::NoGradGuard {};
void aggregate_temporary() {
  // CHECK: [[@LINE+1]]:3: GL105 `EvalGuard{}` creates an unnamed `EvalGuard` that is destroyed at the end of this statement
  EvalGuard{};
  work();
}
