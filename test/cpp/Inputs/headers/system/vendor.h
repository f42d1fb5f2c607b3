#pragma once
#include <torch/torch.h>

// A third-party header (found through -isystem): never lowered.
inline void vendor_freeze() {
  c10::GradMode::set_enabled(false);
  torch::NoGradGuard();
}
