// The four C++ rules as clang-tidy checks, with the same rule code as `gradlint check`.
// RUN: %clang-tidy -load=%tidy-plugin -checks='-*,gradlint-*' %s -- -std=c++17 -I%cpp-inputs 2>&1 | FileCheck %s -check-prefix=CHECK-MESSAGES --implicit-check-not='warning:'
//
// Fix-its, applied by clang-tidy --fix on a copy.
// RUN: cp %s %t.cpp
// RUN: %clang-tidy -load=%tidy-plugin -checks='-*,gradlint-*' --fix %t.cpp -- -std=c++17 -I%cpp-inputs 2>&1 | FileCheck %s -check-prefix=APPLIED
// APPLIED: clang-tidy applied 2 of 2 suggested fixes.
// RUN: FileCheck %s -check-prefix=CHECK-FIXES --input-file %t.cpp
#include <torch/torch.h>

void work();

torch::Tensor load_model(const char* path) {
  at::GradMode::set_enabled(false);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: `at::GradMode::set_enabled(false)` disables grad mode and `load_model` returns with it still disabled; every later `backward()` in this thread computes no gradients [gradlint-grad-mode-leak]
  // CHECK-MESSAGES: :[[@LINE+2]]:3: note: grad mode is still disabled when `load_model` returns here
  // CHECK-MESSAGES: :[[@LINE-3]]:3: note: help: use a `torch::NoGradGuard` / `c10::AutoGradMode` guard object
  return torch::load(path);
}

torch::Tensor evaluate(torch::nn::Module& model, const torch::Tensor& batch) {
  const bool prev = c10::GradMode::is_enabled();
  c10::GradMode::set_enabled(false);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: `c10::GradMode::set_enabled(false)` disables grad mode and `evaluate` restores it only on the normal path; an exception before the restore leaves gradients off for the rest of the thread [gradlint-grad-mode-restore-not-exception-safe]
  torch::Tensor out = model.forward(batch);
  // CHECK-MESSAGES: :[[@LINE-1]]:23: note: an exception raised here leaves grad mode disabled
  c10::GradMode::set_enabled(prev);
  return out;
}

void temporary() {
  torch::NoGradGuard();
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: `torch::NoGradGuard()` creates an unnamed `torch::NoGradGuard` that is destroyed at the end of this statement, so grad mode is unchanged for the code below [gradlint-grad-context-not-entered]
  // CHECK-FIXES: {{^}}  torch::NoGradGuard no_grad;{{$}}
  work();
}

void vexing() {
  c10::InferenceMode guard();
  // CHECK-MESSAGES: :[[@LINE-1]]:22: warning: `c10::InferenceMode guard();` declares a function named `guard`, not a guard object (the most vexing parse), so grad mode is unchanged for the code below [gradlint-guard-declared-as-function]
  // CHECK-FIXES: {{^}}  c10::InferenceMode guard;{{$}}
  work();
}

// Silent: guards, restores on every path, and clang-tidy's own NOLINT.
void fine() {
  torch::NoGradGuard no_grad;
  auto mode = c10::AutoGradMode(false);
  work();
}

void suppressed() {
  c10::GradMode::set_enabled(false); // NOLINT(gradlint-grad-mode-leak)
}
