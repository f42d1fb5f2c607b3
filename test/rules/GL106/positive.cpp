// RUN: not %check-file %s %cpp-flags 2>&1 | FileCheck %s --implicit-check-not=': GL' --implicit-check-not=warning:
// GL106 guard-declared-as-function: `T name();` in a function body declares a function (the
// most vexing parse), so the guard is never made.
#include <torch/torch.h>

void work();

void vexing() {
  // CHECK: [[@LINE+1]]:22: GL106 `torch::NoGradGuard guard();` declares a function named `guard`, not a guard object (the most vexing parse), so grad mode is unchanged for the code below
  torch::NoGradGuard guard();
  // CHECK: [[@LINE+1]]:19: GL106 `at::NoGradGuard no_grad();` declares a function named `no_grad`
  at::NoGradGuard no_grad ();
  // CHECK: [[@LINE+1]]:22: GL106 `c10::InferenceMode mode();` declares a function named `mode`
  c10::InferenceMode mode();
  // CHECK: [[@LINE+1]]:33: GL106 `at::AutoDispatchBelowAutograd below();` declares a function named `below`, not a guard object (the most vexing parse), so the dispatch keys are unchanged for the code below
  at::AutoDispatchBelowAutograd below();
  work();
}

// Among other declarators, in a lambda, and for a class derived from a guard.
struct ScopedNoGrad : c10::NoGradGuard {};
void more() {
  // CHECK: [[@LINE+1]]:29: GL106 `torch::NoGradGuard second();` declares a function named `second`
  torch::NoGradGuard first, second();
  auto run = [] {
    // CHECK: [[@LINE+1]]:18: GL106 `ScopedNoGrad scope();` declares a function named `scope`
    ScopedNoGrad scope();
    work();
  };
  run();
}
