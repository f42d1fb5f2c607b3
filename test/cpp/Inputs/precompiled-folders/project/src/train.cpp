#include <torch/torch.h>
#include <vendorlib/vendor.h>
#include <proj/config.h>

void leaks() {
  c10::GradMode::set_enabled(false);
}

void restored() {
  vendor::ModeRestorer restore;
  c10::GradMode::set_enabled(false);
}
