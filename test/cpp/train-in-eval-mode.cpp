// RUN: not %check-file --select GL306 %s %cpp-flags 2>&1 | FileCheck %s --implicit-check-not=': GL' --implicit-check-not=warning:
// GL306 in C++: `model->eval()` and an evaluation under `torch::NoGradGuard` at the end of each
// epoch, and no `model->train()` before the next epoch's training. The twin switches back.
#include <torch/torch.h>

void fit(torch::nn::Linear& model, torch::optim::SGD& opt, torch::Tensor x, torch::Tensor y) {
  for (int epoch = 0; epoch < 10; ++epoch) {
    // CHECK: [[@LINE+1]]:16: GL306 `model` is trained while still in evaluation mode
    auto out = model->forward(x);
    auto loss = torch::nn::mse_loss(out, y);
    opt.zero_grad();
    loss.backward();
    opt.step();
    model->eval();
    {
      torch::NoGradGuard no_grad;
      model->forward(x);
    }
  }
}

void fitFixed(torch::nn::Linear& model, torch::optim::SGD& opt, torch::Tensor x,
              torch::Tensor y) {
  for (int epoch = 0; epoch < 10; ++epoch) {
    model->train();
    auto out = model->forward(x);
    auto loss = torch::nn::mse_loss(out, y);
    opt.zero_grad();
    loss.backward();
    opt.step();
    model->eval();
    {
      torch::NoGradGuard no_grad;
      model->forward(x);
    }
  }
}
