// The C++ rules on code that includes the real <torch/torch.h>: names resolve through
// LibTorch's own aliases (at::GradMode is c10::GradMode, torch::NoGradGuard is
// c10::NoGradGuard, ...), and the headers' own guards stay silent.
// RUN: not %check-file %s %torch-flags 2>&1 | FileCheck %s --implicit-check-not=': GL' --implicit-check-not=warning:
#include <torch/torch.h>

// CHECK: [[@LINE+3]]:3: GL101 `at::GradMode::set_enabled(false)` disables grad mode and `load_weights` returns with it still disabled; every later `backward()` in this thread computes no gradients
// The incident: a loader that turns gradients off for the whole process.
torch::Tensor load_weights(int64_t n) {
  at::GradMode::set_enabled(false);
  return torch::randn({n, n});
}

torch::Tensor evaluate(torch::nn::Linear& model, const torch::Tensor& batch) {
  const bool prev = torch::autograd::GradMode::is_enabled();
  // CHECK: [[@LINE+1]]:3: GL104 `torch::autograd::GradMode::set_enabled(false)` disables grad mode and `evaluate` restores it only on the normal path
  torch::autograd::GradMode::set_enabled(false);
  torch::Tensor out = model->forward(batch);
  torch::autograd::GradMode::set_enabled(prev);
  return out;
}

torch::Tensor embed(torch::nn::Linear& model, const torch::Tensor& batch) {
  // CHECK: [[@LINE+1]]:3: GL105 `torch::NoGradGuard()` creates an unnamed `torch::NoGradGuard` that is destroyed at the end of this statement
  torch::NoGradGuard();
  // CHECK: [[@LINE+1]]:22: GL106 `c10::InferenceMode guard();` declares a function named `guard`
  c10::InferenceMode guard();
  return model->forward(batch);
}

// Silent: the documented ways to turn gradients off.
torch::Tensor predict(torch::nn::Linear& model, const torch::Tensor& batch) {
  torch::NoGradGuard no_grad;
  return model->forward(batch);
}

torch::Tensor infer(torch::nn::Linear& model, const torch::Tensor& batch) {
  c10::InferenceMode guard;
  at::AutoDispatchBelowADInplaceOrView below;
  torch::AutoGradMode enable_grad(true);
  return model->forward(batch);
}
