// RUN: not %check-file %s %cpp-flags 2>&1 | FileCheck %s --implicit-check-not=': GL' --implicit-check-not=warning:
// GL301-GL305 in C++: LibTorch training loops lower to the same Backward/Step/ZeroGrad/Eval
// events as Python's, through locals, members, pointers and ModuleHolders (`model->`).
#include <memory>

#include <torch/torch.h>

struct NetImpl : torch::nn::Module {
  torch::Tensor forward(const torch::Tensor& x);
};
struct Net : torch::nn::ModuleHolder<NetImpl> {};

torch::Tensor batch();

void missing_zero_grad(Net& model, torch::optim::SGD& optimizer) {
  for (int epoch = 0; epoch < 10; ++epoch) {
    auto loss = torch::nn::mse_loss(model->forward(batch()), batch());
    loss.backward();
    // CHECK: [[@LINE+1]]:5: GL301 `optimizer.step()` applies the gradients, but nothing resets them before the next `backward()`
    optimizer.step();
  }
}

struct Trainer {
  Net model_;
  std::shared_ptr<torch::optim::Optimizer> optimizer_;

  void epoch() {
    for (int i = 0; i < 100; ++i) {
      auto output = model_->forward(batch());
      torch::autograd::backward({output});
      // CHECK: [[@LINE+1]]:7: GL301 `optimizer_.step()` applies the gradients
      optimizer_->step();
    }
  }

  void zero_between() {
    for (int i = 0; i < 100; ++i) {
      auto loss = model_(batch());
      loss.backward();
      // CHECK: [[@LINE+1]]:7: GL305 `model_.zero_grad()` runs after `backward()` and before `step()`: the step applies zeroed gradients
      model_->zero_grad();
      optimizer_->step();
    }
  }
};

void backward_through_no_grad(NetImpl* net) {
  torch::NoGradGuard no_grad;
  torch::Tensor loss = net->forward(batch());
  // CHECK: [[@LINE+1]]:3: GL302 `loss` was computed with grad disabled, so it has no autograd graph
  loss.backward();
}

void backward_after_auto_grad_mode_off(Net& model) {
  torch::Tensor loss;
  {
    c10::AutoGradMode mode(false);
    loss = model->forward(batch());
  }
  // CHECK: [[@LINE+1]]:3: GL302 `loss` was computed with grad disabled
  loss.backward();
}

float evaluate(Net& model) {
  model->eval();
  float total = 0;
  for (int i = 0; i < 10; ++i) {
    // CHECK: [[@LINE+1]]:28: GL303 `model` runs in evaluation mode but with grad enabled
    torch::Tensor output = model->forward(batch());
    total += output.item();
  }
  return total;
}

float evaluate_train_false(Net& model) {
  model->train(false);
  float total = 0;
  for (int i = 0; i < 10; ++i) {
    // CHECK: [[@LINE+1]]:14: GL303 `model` runs in evaluation mode
    total += model(batch()).item();
  }
  return total;
}

void inference_tensor(Net& model, Net& head) {
  torch::Tensor features;
  {
    c10::InferenceMode guard;
    features = model->forward(batch());
  }
  // CHECK: [[@LINE+1]]:3: GL304 `features` is an inference tensor (made under `c10::InferenceMode`) and is used to compute `loss`, which is backpropagated
  auto loss = head->forward(features);
  loss.backward();
}

// Cloned in one operand, used as is in the other: still an inference tensor in the graph.
void inference_tensor_one_operand_cloned(Net& model, Net& head) {
  torch::Tensor features;
  {
    c10::InferenceMode guard;
    features = model->forward(batch());
  }
  // CHECK: [[@LINE+1]]:3: GL304 `features` is an inference tensor
  auto loss = head->forward(features.clone()) + head->forward(features);
  loss.backward();
}

// A member function template over its data loader, never instantiated here (its callers are in
// other files): a range-for over a dependent type, and a loss whose type depends on it.
struct TemplateTrainer {
  Net model_;
  torch::optim::SGD* optimizer_ = nullptr;

  template <typename Loader> double train_epoch(Loader& loader) {
    double total = 0;
    for (auto& batch : loader) {
      auto loss = torch::nn::mse_loss(model_->forward(batch.data), batch.target);
      loss.backward();
      // CHECK: [[@LINE+1]]:7: GL301 `optimizer_.step()` applies the gradients, but nothing resets them
      optimizer_->step();
      total += 1;
    }
    return total;
  }
};

// CHECK: Found 5 errors and 5 warnings.
