// A LibTorch program with a correct NoGradGuard scope: the probe sees the toggle restored in its
// own frame, and training afterwards works.
#include <c10/core/GradMode.h>
#include <torch/nn/modules/linear.h>

#include <iostream>

__attribute__((noinline)) torch::Tensor evaluate(torch::nn::Linear& model, const torch::Tensor& x) {
  c10::AutoGradMode noGrad(false);
  return model->forward(x);
}

int main() {
  torch::nn::Linear model(4, 1);
  std::cout << "eval requires grad: " << evaluate(model, torch::randn({8, 4})).requires_grad()
            << '\n';
  model->forward(torch::randn({8, 4})).sum().backward();
  std::cout << "weight grad defined: " << model->weight.grad().defined() << '\n';
  return 0;
}
