#include <torch/torch.h>
#include <proj/helpers.h>
#include <vendorlib/vendor.h>

// The project's header ends the precompiled prefix: its function is checked.
void calls_helper() { freeze_helper(); }

void evaluates() { torch::NoGradGuard no_grad; }
