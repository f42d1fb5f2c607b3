// RUN: %check-file %s %cpp-flags 2>&1 | count 0
// Correct LibTorch training loops: no GL301-GL305 here.
#include <memory>

#include <torch/torch.h>

struct NetImpl : torch::nn::Module {
  torch::Tensor forward(const torch::Tensor& x);
};
struct Net : torch::nn::ModuleHolder<NetImpl> {};

torch::Tensor batch();
bool more();

void train(Net& model, torch::optim::SGD& optimizer) {
  model->train();
  for (int epoch = 0; epoch < 10; ++epoch) {
    optimizer.zero_grad();
    auto loss = torch::nn::mse_loss(model->forward(batch()), batch());
    loss.backward();
    optimizer.step();
  }
}

// Gradient accumulation: several backwards per step, reset after the step.
void accumulate(Net& model, torch::optim::Optimizer& optimizer) {
  for (int i = 0; more(); ++i) {
    auto loss = model(batch());
    loss.backward();
    if (i % 4 == 3) {
      optimizer.step();
      optimizer.zero_grad();
    }
  }
}

// Reset through the model, via a pointer and a shared_ptr.
void through_pointers(Net& model, std::shared_ptr<torch::optim::Optimizer> optimizer) {
  while (more()) {
    model->zero_grad();
    auto loss = model->forward(batch());
    loss.backward();
    optimizer->step();
  }
}

// A scheduler's step is not an optimizer's.
void scheduler(Net& model, torch::optim::SGD& optimizer, torch::optim::LRScheduler& schedule) {
  for (int epoch = 0; epoch < 10; ++epoch) {
    optimizer.zero_grad();
    model(batch()).backward();
    optimizer.step();
    schedule.step();
  }
}

void frozen_backbone(Net& backbone, Net& head, torch::optim::SGD& optimizer) {
  torch::Tensor features;
  {
    torch::NoGradGuard no_grad;
    features = backbone->forward(batch());
  }
  optimizer.zero_grad();
  auto loss = head->forward(features); // computed with grad on: has a graph
  loss.backward();
  optimizer.step();
}

void inference_clone(Net& model, Net& head) {
  torch::Tensor features;
  {
    c10::InferenceMode guard;
    features = model->forward(batch());
  }
  auto copy = features.clone();
  auto loss = head->forward(copy);
  loss.backward();
}

// The copy made inside the expression that is backpropagated: a normal tensor too.
void inference_clone_inline(Net& model, Net& head) {
  torch::Tensor features;
  {
    c10::InferenceMode guard;
    features = model->forward(batch());
  }
  auto loss = head->forward(features.clone()) + head(batch());
  loss.backward();
}

float evaluate(Net& model) {
  model->eval();
  torch::NoGradGuard no_grad;
  float total = 0;
  for (int i = 0; i < 10; ++i) total += model->forward(batch()).item();
  return total;
}

float evaluate_inference(Net& model) {
  model->eval();
  float total = 0;
  for (int i = 0; i < 10; ++i) {
    c10::InferenceMode guard;
    total += model(batch()).item();
  }
  return total;
}

// Back to training before the loop.
void evaluate_then_train(Net& model) {
  model->eval();
  model->train();
  for (int i = 0; i < 10; ++i) (void)model->forward(batch());
}

// A member function template over its data loader, never instantiated here: each step's
// gradients are reset, through the optimizer or through a module whose type is a parameter.
struct TemplateTrainer {
  Net model_;
  torch::optim::SGD* optimizer_ = nullptr;

  template <typename Loader> double train_epoch(Loader& loader) {
    double total = 0;
    for (auto& batch : loader) {
      optimizer_->zero_grad();
      auto loss = torch::nn::mse_loss(model_->forward(batch.data), batch.target);
      loss.backward();
      optimizer_->step();
      total += 1;
    }
    return total;
  }

  template <typename Model, typename Loader> void train_model(Model& model, Loader& loader) {
    for (auto& batch : loader) {
      model.zero_grad();
      auto loss = torch::nn::mse_loss(model.forward(batch.data), batch.target);
      loss.backward();
      optimizer_->step();
    }
  }
};
