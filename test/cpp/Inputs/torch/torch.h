// A small stand-in for LibTorch's headers, with the same names, aliases and shapes as
// libtorch-dev 1.13 (c10/core/GradMode.h, c10/core/InferenceMode.h, ATen/core/grad_mode.h,
// ATen/core/LegacyTypeDispatch.h, torch/csrc/api/include/torch/utils.h): the real
// <torch/torch.h> costs ~10 s per file, this one nothing. test/cpp/e2e checks the real one.
#pragma once

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
  void backward() const;
};

} // namespace at

namespace torch {

using at::Tensor;
using NoGradGuard = at::NoGradGuard;
using AutoGradMode = at::AutoGradMode;

namespace autograd {
using GradMode = at::GradMode;
using AutoGradMode = at::AutoGradMode;
} // namespace autograd

Tensor randn(int size);
Tensor load(const char* path);

namespace nn {
class Module {
public:
  Tensor forward(const Tensor& input);
  void eval();
};
} // namespace nn

} // namespace torch
