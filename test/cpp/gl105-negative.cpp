// RUN: %check-file %s %cpp-flags 2>&1 | count 0
// Guards that live: named, copy-initialised, bound to a reference, members, returned, made
// on the heap. No GL105 here.
#include <memory>

#include <torch/torch.h>

void work();

void named() {
  torch::NoGradGuard no_grad;
  c10::AutoGradMode enable(true);
  auto guard = torch::NoGradGuard();
  auto mode = c10::AutoGradMode(false);
  const at::NoGradGuard& bound = at::NoGradGuard();
  c10::InferenceMode inference{};
  work();
}

struct Model {
  torch::NoGradGuard guard_;
  c10::InferenceMode mode_{true};
  Model() : guard_() {}
};

// A factory that hands the guard to its caller.
c10::AutoGradMode make_guard(bool enabled) { return c10::AutoGradMode(enabled); }

void heap() {
  auto guard = std::make_unique<torch::NoGradGuard>();
  work();
}

// Temporaries of other types are none of GL105's business.
struct Timer {
  Timer();
  ~Timer();
};
void other_types() {
  Timer();
  torch::randn(2);
}

// The derived aggregate named: it guards its scope.
struct EvalGuard : torch::NoGradGuard {};
void aggregate_named() {
  EvalGuard guard{};
  work();
}
