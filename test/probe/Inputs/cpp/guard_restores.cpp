// A LibTorch program with a correct NoGradGuard scope and a correct InferenceMode scope: the
// probe sees each mode restored in its own frame, and training afterwards works.
#include <c10/core/GradMode.h>
#include <c10/core/InferenceMode.h>
#include <torch/nn/modules/linear.h>

#include <iostream>

__attribute__((noinline)) torch::Tensor evaluate(torch::nn::Linear& model, const torch::Tensor& x) {
  c10::AutoGradMode noGrad(false);
  return model->forward(x);
}

__attribute__((noinline)) torch::Tensor serve(torch::nn::Linear& model, const torch::Tensor& x) {
  c10::InferenceMode guard;
  return model->forward(x);
}

int main() {
  torch::nn::Linear model(4, 1);
  std::cout << "eval requires grad: " << evaluate(model, torch::randn({8, 4})).requires_grad()
            << '\n';
  std::cout << "served inference tensor: " << serve(model, torch::randn({8, 4})).is_inference()
            << '\n';
  model->forward(torch::randn({8, 4})).sum().backward();
  std::cout << "weight grad defined: " << model->weight.grad().defined() << '\n';
  return 0;
}
