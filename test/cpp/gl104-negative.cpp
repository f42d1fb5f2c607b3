// RUN: %check-file %s %cpp-flags 2>&1 | count 0
// Exception-safe restores: destructors run while an exception unwinds, and handlers that
// restore before rethrowing. No GL104 here.
#include <torch/torch.h>

void work();

// A guard restores on the exception path too.
void guarded() {
  torch::NoGradGuard no_grad;
  work();
}

// A destructor that restores: also on the exception path.
struct RestoreGradMode {
  bool prev = c10::GradMode::is_enabled();
  ~RestoreGradMode() { c10::GradMode::set_enabled(prev); }
};

void with_restorer() {
  RestoreGradMode restore;
  c10::GradMode::set_enabled(false);
  work();
}

// A guard made inside a try block is destroyed before the handler runs.
void guard_in_try() {
  try {
    c10::AutoGradMode mode(false);
    work();
  } catch (...) {
  }
  work();
}

// catch (...) restores and rethrows: every way out restores.
void catch_all() {
  const bool prev = c10::GradMode::is_enabled();
  c10::GradMode::set_enabled(false);
  try {
    work();
  } catch (...) {
    c10::GradMode::set_enabled(prev);
    throw;
  }
  c10::GradMode::set_enabled(prev);
}

// Nothing can throw between the toggle and the restore.
int add(int a, int b) noexcept;
void nothing_throws() {
  const bool prev = c10::GradMode::is_enabled();
  c10::GradMode::set_enabled(false);
  add(1, 2);
  c10::GradMode::set_enabled(prev);
}
