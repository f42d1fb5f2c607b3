// The training-loop rules (GL301-GL305) as clang-tidy checks.
// RUN: %clang-tidy -load=%tidy-plugin -checks='-*,gradlint-missing-zero-grad,gradlint-zero-grad-between-backward-and-step,gradlint-eval-without-no-grad,gradlint-backward-through-no-grad,gradlint-inference-tensor-in-autograd' %s -- -std=c++17 -I%cpp-inputs 2>&1 | FileCheck %s -check-prefix=CHECK-MESSAGES --implicit-check-not='warning:'
#include <torch/torch.h>

torch::Tensor batch();

void train(torch::nn::Linear& model, torch::optim::SGD& optimizer) {
  for (int i = 0; i < 10; ++i) {
    model(batch()).backward();
    optimizer.step();
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: `optimizer.step()` applies the gradients, but nothing resets them before the next `backward()`{{.*}} [gradlint-missing-zero-grad]
    // CHECK-MESSAGES: :[[@LINE-3]]:5: note: this `backward()` adds to the gradients the step already used
    // CHECK-MESSAGES: :[[@LINE-3]]:5: note: help: call `optimizer.zero_grad()` (or `model->zero_grad()`)
  }
}

void train_reset_late(torch::nn::Linear& model, torch::optim::SGD& optimizer) {
  for (int i = 0; i < 10; ++i) {
    model(batch()).backward();
    optimizer.zero_grad();
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: `optimizer.zero_grad()` runs after `backward()` and before `step()`{{.*}} [gradlint-zero-grad-between-backward-and-step]
    // CHECK-MESSAGES: :[[@LINE+2]]:5: note: the step that gets the zeroed gradients
    // CHECK-MESSAGES: :[[@LINE-3]]:5: note: help: move `zero_grad()`
    optimizer.step();
  }
}

float evaluate(torch::nn::Linear& model) {
  model->eval();
  float total = 0;
  for (int i = 0; i < 10; ++i) total += model->forward(batch()).item();
  // CHECK-MESSAGES: :[[@LINE-1]]:41: warning: `model` runs in evaluation mode but with grad enabled{{.*}} [gradlint-eval-without-no-grad]
  // CHECK-MESSAGES: :[[@LINE-4]]:3: note: evaluation mode is set here
  // CHECK-MESSAGES: :[[@LINE-3]]:41: note: help: declare `torch::NoGradGuard no_grad;`
  return total;
}

void train_well(torch::nn::Linear& model, torch::optim::SGD& optimizer) {
  for (int i = 0; i < 10; ++i) {
    optimizer.zero_grad();
    model(batch()).backward();
    optimizer.step();
  }
}

void backward_under_guard(torch::nn::Linear& model) {
  torch::NoGradGuard no_grad;
  torch::Tensor loss = model(batch());
  loss.backward();
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: `loss` was computed with grad disabled, so it has no autograd graph{{.*}} [gradlint-backward-through-no-grad]
}

void inference_features(torch::nn::Linear& backbone, torch::nn::Linear& head) {
  torch::Tensor features;
  {
    c10::InferenceMode guard;
    features = backbone(batch());
  }
  auto loss = head(features);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: `features` is an inference tensor (made under `c10::InferenceMode`){{.*}} [gradlint-inference-tensor-in-autograd]
  loss.backward();
}

// Correct: the guard ends before the part that is trained; a clone is a normal tensor.
void frozen_then_trained(torch::nn::Linear& backbone, torch::nn::Linear& head) {
  torch::Tensor features;
  torch::Tensor kept;
  {
    torch::NoGradGuard no_grad;
    features = backbone(batch());
  }
  {
    c10::InferenceMode guard;
    kept = backbone(batch());
  }
  auto loss = head(features) + head(kept.clone());
  loss.backward();
}
