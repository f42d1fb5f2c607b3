// RUN: %check-file %s %cpp-flags 2>&1 | count 0
// The correct twins of gl303.cpp: the evaluation runs with grad disabled, or the function
// trains on what it evaluates (test-time training).
#include <torch/torch.h>

struct NetImpl : torch::nn::Module {
  torch::Tensor forward(const torch::Tensor& x);
};
struct Net : torch::nn::ModuleHolder<NetImpl> {};

torch::Tensor batch();

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
  torch::NoGradGuard no_grad;
  float correct = 0;
  for (int i = 0; i < 10; ++i) {
    auto output = model->forward(batch());
    correct += output.item();
  }
  return correct > 0 ? 0 : 1;
}

// Test-time training: the backward() consumes what the model computes in evaluation mode.
void test_time_training(Net& model, torch::optim::SGD& optimizer) {
  model->eval();
  for (int i = 0; i < 10; ++i) {
    optimizer.zero_grad();
    auto output = model->forward(batch());
    auto loss = output * output;
    loss.backward();
    optimizer.step();
  }
}

// Style transfer: the model evaluates, and the input image is what trains. The loss is summed
// with `+=` from the evaluation outputs.
void style_transfer(Net& model, torch::Tensor image, torch::optim::SGD& optimizer) {
  model->eval();
  for (int step = 0; step < 10; ++step) {
    auto features = model->forward(image);
    auto loss = batch();
    loss += features * features;
    optimizer.zero_grad();
    loss.backward();
    optimizer.step();
  }
}

float test_script(torch::jit::script::Module network) {
  network.eval();
  torch::NoGradGuard no_grad;
  float total = 0;
  for (int i = 0; i < 10; ++i) {
    std::vector<torch::jit::IValue> input;
    input.push_back(batch());
    auto output = network.forward(input).toTensor();
    total += output.item();
  }
  return total;
}
