// A third-party library's header (-isystem) that includes another of its own by an angled
// name, which a project's -I folder can hide (shadow/).
#pragma once

#include <torch/torch.h>
#include <vendorlib/detail.h>

namespace vendor {

class ModeRestorer {
public:
  ModeRestorer() : previous_(c10::GradMode::is_enabled()) {}
  ~ModeRestorer() { VENDOR_RESTORE(previous_); }

private:
  bool previous_;
};

} // namespace vendor
