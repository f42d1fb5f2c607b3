// The two LibTorch declarations this example uses, under their real names (c10/core/GradMode.h),
// so that the example builds without LibTorch installed.
#pragma once

namespace c10 {
struct GradMode {
  static bool is_enabled();
  static void set_enabled(bool enabled);
};
} // namespace c10
