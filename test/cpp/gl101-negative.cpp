// RUN: %check-file --select GL101 %s %cpp-flags 2>&1 | count 0
// Code that keeps grad mode right: guards, save/restore on every path, restoring destructors.
// No GL101 here (save/restore with a call between is GL104 territory: see gl104.cpp).
#include <torch/torch.h>

bool has_cache();
void work();

// A named guard: restores the mode when it goes out of scope, on every path.
torch::Tensor guarded(const char* path) {
  torch::NoGradGuard no_grad;
  if (has_cache()) return torch::randn(1);
  return torch::load(path);
}

// Every guard spelling, held as a local, a copy-initialised local or a reference.
void spellings() {
  at::NoGradGuard a;
  c10::AutoGradMode b(false);
  torch::AutoGradMode c{false};
  torch::autograd::AutoGradMode d(true);
  c10::InferenceMode e;
  auto f = torch::NoGradGuard();
  const auto& g = at::NoGradGuard();
  at::AutoDispatchBelowAutograd h;
  at::AutoDispatchBelowADInplaceOrView i;
  work();
}

// Save, toggle, restore: on every return.
torch::Tensor save_restore(torch::nn::Module& model, const torch::Tensor& batch) {
  const bool prev = c10::GradMode::is_enabled();
  c10::GradMode::set_enabled(false);
  if (has_cache()) {
    c10::GradMode::set_enabled(prev);
    return batch;
  }
  torch::Tensor out = model.forward(batch);
  c10::GradMode::set_enabled(prev);
  return out;
}

// Restoring `true` counts too; so does a later assignment from is_enabled().
void toggle_back() {
  bool prev;
  prev = at::GradMode::is_enabled();
  at::GradMode::set_enabled(false);
  work();
  at::GradMode::set_enabled(true);
  at::GradMode::set_enabled(false);
  at::GradMode::set_enabled(prev);
}

// A local object whose destructor restores the mode.
struct RestoreGradMode {
  bool prev = c10::GradMode::is_enabled();
  ~RestoreGradMode() { c10::GradMode::set_enabled(prev); }
};

void with_restorer() {
  RestoreGradMode restore;
  c10::GradMode::set_enabled(false);
  if (has_cache()) return;
  work();
}

// A user guard: its constructor disables, its destructor restores. The constructor is the
// enter half of the guard, not a leak.
class ScopedNoGrad {
public:
  ScopedNoGrad() : prev_(c10::GradMode::is_enabled()) { c10::GradMode::set_enabled(false); }
  ~ScopedNoGrad() { c10::GradMode::set_enabled(prev_); }

private:
  bool prev_;
};

void with_user_guard() {
  ScopedNoGrad guard;
  work();
}

// Guards held as members, and a class deriving from a guard.
struct Evaluator {
  torch::NoGradGuard no_grad_;
  void run() { work(); }
};
struct MyGuard : torch::NoGradGuard {};
void derived() {
  MyGuard guard;
  work();
}

// A helper that restores its argument, called with the saved mode.
void restore_mode(bool mode) { c10::GradMode::set_enabled(mode); }
void uses_helper() {
  const bool prev = c10::GradMode::is_enabled();
  c10::GradMode::set_enabled(false);
  torch::randn(3);
  restore_mode(prev);
}

// Enabling grad mode is never a leak of a disabled mode.
void enable() { c10::GradMode::set_enabled(true); }

// A noexcept function cannot leak through an exception (it terminates).
void no_throw() noexcept {
  const bool prev = c10::GradMode::is_enabled();
  c10::GradMode::set_enabled(false);
  work();
  c10::GradMode::set_enabled(prev);
}
