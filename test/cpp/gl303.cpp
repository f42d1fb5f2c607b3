// RUN: not %check-file %s %cpp-flags 2>&1 | FileCheck %s --implicit-check-not=': GL' --implicit-check-not=warning:
// GL303 in C++: evaluation loops that run a model in evaluation mode with grad enabled, in the
// shapes of LibTorch programs: a `main` that trains and then evaluates, a TorchScript module,
// an evaluation program that loads a policy and runs it.
#include <torch/torch.h>

struct NetImpl : torch::nn::Module {
  torch::Tensor forward(const torch::Tensor& x);
};
struct Net : torch::nn::ModuleHolder<NetImpl> {};

torch::Tensor batch();

// Trained before, not after: the evaluation loop is not a training loop's side evaluation.
int main() {
  Net model;
  torch::optim::SGD optimizer({}, 0.01);
  for (int epoch = 0; epoch < 10; ++epoch) {
    optimizer.zero_grad();
    auto loss = torch::nn::mse_loss(model->forward(batch()), batch());
    loss.backward();
    optimizer.step();
  }
  model->eval();
  float correct = 0;
  for (int i = 0; i < 10; ++i) {
    // CHECK: [[@LINE+1]]:19: GL303 `model` runs in evaluation mode but with grad enabled
    auto output = model->forward(batch());
    correct += output.item();
  }
  return correct > 0 ? 0 : 1;
}

// A TorchScript module: its eval() and forward are a module's too.
float test_script(torch::jit::script::Module network) {
  network.eval();
  float total = 0;
  for (int i = 0; i < 10; ++i) {
    std::vector<torch::jit::IValue> input;
    input.push_back(batch());
    // CHECK: [[@LINE+1]]:19: GL303 `network` runs in evaluation mode but with grad enabled
    auto output = network.forward(input).toTensor();
    total += output.item();
  }
  return total;
}

// Each epoch trains and then evaluates: the next epoch's backward() consumes the training
// batches' outputs, not the validation loop's, whose graphs are waste.
void train_and_validate(Net& model, torch::optim::SGD& optimizer) {
  for (int epoch = 0; epoch < 10; ++epoch) {
    model->train();
    for (int i = 0; i < 10; ++i) {
      optimizer.zero_grad();
      auto loss = torch::nn::mse_loss(model->forward(batch()), batch());
      loss.backward();
      optimizer.step();
    }
    model->eval();
    float total = 0;
    for (int i = 0; i < 10; ++i) {
      // CHECK: [[@LINE+1]]:21: GL303 `model` runs in evaluation mode but with grad enabled
      auto output = model->forward(batch());
      total += output.item();
    }
  }
}

// CHECK: Found 3 warnings.
