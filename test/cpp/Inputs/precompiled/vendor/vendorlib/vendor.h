// A third-party library's header (passed with -isystem): precompiled with <torch/torch.h>.
#pragma once

#include <torch/torch.h>

namespace vendor {

// Only its destructor's body tells that it restores grad mode: the precompiled header must keep
// destructors' bodies, as a unit's own parse does.
class ModeRestorer {
public:
  ModeRestorer() : previous_(c10::GradMode::is_enabled()) {}
#ifndef VENDOR_FORGETFUL_RESTORER
  ~ModeRestorer() { c10::GradMode::set_enabled(previous_); }
#endif

private:
  bool previous_;
};

inline void warm_up(at::Tensor& tensor) { tensor.sum(); }

} // namespace vendor
