#include <torch/torch.h>
#include <vendorlib/vendor.h>

void throws_while_disabled(at::Tensor& tensor) {
  c10::GradMode::set_enabled(false);
  vendor::warm_up(tensor);
  c10::GradMode::set_enabled(true);
}

void restored_too() {
  vendor::ModeRestorer restore;
  c10::GradMode::set_enabled(false);
}
