#define VENDOR_FORGETFUL_RESTORER 1
#include <torch/torch.h>
#include <vendorlib/vendor.h>

// A macro before the includes changes them: this unit parses them itself, and its restorer
// restores nothing.
void forgetful() {
  vendor::ModeRestorer restore;
  c10::GradMode::set_enabled(false);
}
