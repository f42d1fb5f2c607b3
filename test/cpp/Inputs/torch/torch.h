// A small stand-in for LibTorch's headers, with the same names, aliases and shapes as
// libtorch-dev 1.13 (c10/core/GradMode.h, c10/core/InferenceMode.h, ATen/core/grad_mode.h,
// ATen/core/LegacyTypeDispatch.h, torch/csrc/api/include/torch/utils.h): the real
// <torch/torch.h> costs ~10 s per file, this one nothing. test/cpp/e2e checks the real one.
#pragma once

#include <string>
#include <vector>

namespace c10 {

struct GradMode {
  static bool is_enabled();
  static void set_enabled(bool enabled);
};

struct AutoGradMode {
  AutoGradMode(bool enabled) : prev_mode(GradMode::is_enabled()) {
    GradMode::set_enabled(enabled);
  }
  ~AutoGradMode() { GradMode::set_enabled(prev_mode); }
  bool prev_mode;
};

struct NoGradGuard : public AutoGradMode {
  NoGradGuard() : AutoGradMode(/*enabled=*/false) {}
};

struct InferenceMode {
  InferenceMode(bool enabled = true);
  ~InferenceMode();
};

class Error {};

namespace impl {
struct ExcludeDispatchKeyGuard {
  explicit ExcludeDispatchKeyGuard(int keys);
  ~ExcludeDispatchKeyGuard();
};
} // namespace impl

} // namespace c10

namespace at {

using GradMode = c10::GradMode;
using AutoGradMode = c10::AutoGradMode;
using NoGradGuard = c10::NoGradGuard;

struct AutoDispatchBelowAutograd {
  AutoDispatchBelowAutograd() : autograd_guard_(1) {}
  c10::impl::ExcludeDispatchKeyGuard autograd_guard_;
};

struct AutoDispatchBelowADInplaceOrView {
  AutoDispatchBelowADInplaceOrView() : dispatch_key_guard_(2) {}
  c10::impl::ExcludeDispatchKeyGuard dispatch_key_guard_;
};

class Tensor {
public:
  Tensor operator*(const Tensor& other) const;
  Tensor operator+(const Tensor& other) const;
  Tensor& operator+=(const Tensor& other);
  void backward() const;
  Tensor clone() const;
  Tensor detach() const;
  float item() const;
};

} // namespace at

namespace torch {

using at::Tensor;
using NoGradGuard = at::NoGradGuard;
using AutoGradMode = at::AutoGradMode;

namespace autograd {
using GradMode = at::GradMode;
using AutoGradMode = at::AutoGradMode;
using variable_list = std::vector<Tensor>;
void backward(const variable_list& tensors);
} // namespace autograd

Tensor randn(int size);
Tensor load(const char* path);

namespace nn {
class Module {
public:
  virtual ~Module();
  Tensor forward(const Tensor& input);
  virtual void train(bool on = true);
  void eval();
  virtual void zero_grad(bool set_to_none = true);
  std::vector<Tensor> parameters() const;
};

// torch/nn/pimpl.h: `TORCH_MODULE(Net)` makes `Net` a holder of a shared_ptr<NetImpl>.
template <typename Contained>
class ModuleHolder {
public:
  ModuleHolder();
  Contained* operator->();
  const Contained* operator->() const;
  Contained& operator*();
  template <typename... Args>
  Tensor operator()(Args&&... args);
};

class LinearImpl : public Module {
public:
  Tensor forward(const Tensor& input);
};
class Linear : public ModuleHolder<LinearImpl> {};

Tensor mse_loss(const Tensor& input, const Tensor& target);
} // namespace nn

namespace optim {
class Optimizer {
public:
  explicit Optimizer(std::vector<Tensor> params);
  virtual ~Optimizer();
  virtual Tensor step();
  void zero_grad(bool set_to_none = true);
};
class SGD : public Optimizer {
public:
  SGD(std::vector<Tensor> params, double lr);
  Tensor step() override;
};
class LRScheduler {
public:
  void step();
};
} // namespace optim

// A TorchScript module (torch::jit::load): no torch::nn::Module, its own train/eval/forward.
namespace jit {
struct IValue {
  IValue(const at::Tensor& tensor);
  at::Tensor toTensor() const;
};
struct Module {
  IValue forward(std::vector<IValue> inputs);
  void train(bool on = true);
  void eval() { train(false); }
};
namespace script {
using Module = ::torch::jit::Module;
} // namespace script
Module load(const std::string& path);
} // namespace jit

} // namespace torch
