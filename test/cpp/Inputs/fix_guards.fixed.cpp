#include <torch/torch.h>

#define NO_GRAD() torch::NoGradGuard()

void work();

void temporaries(bool flag) {
  torch::NoGradGuard no_grad;
  work();
  c10::AutoGradMode grad_mode(false);
  work();
  at::AutoDispatchBelowAutograd dispatch_guard{};
  work();
  NO_GRAD();
  (void)torch::NoGradGuard();
  if (flag) {
    c10::InferenceMode inference_mode(true);
  }
}

void name_taken() {
  int no_grad = 0;
  torch::NoGradGuard no_grad_2;
  (void)no_grad;
}

void vexing() {
  torch::NoGradGuard guard;
  c10::InferenceMode mode;
  work();
}
