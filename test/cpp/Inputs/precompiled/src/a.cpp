#include <torch/torch.h>
// Comments and blank lines between the includes are part of the shared prefix.

#include <vendorlib/vendor.h> // trailing comment

void leaks() {
  c10::GradMode::set_enabled(false);
}

void restored(at::Tensor& tensor) {
  vendor::ModeRestorer restore;
  c10::GradMode::set_enabled(false);
  vendor::warm_up(tensor);
}
