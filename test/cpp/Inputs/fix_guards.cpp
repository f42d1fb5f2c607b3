#include <torch/torch.h>

#define NO_GRAD() torch::NoGradGuard()

void work();

void temporaries(bool flag) {
  torch::NoGradGuard();
  work();
  c10::AutoGradMode(false);
  work();
  at::AutoDispatchBelowAutograd{};
  work();
  NO_GRAD();
  (void)torch::NoGradGuard();
  if (flag) {
    c10::InferenceMode(true);
  }
}

void name_taken() {
  int no_grad = 0;
  torch::NoGradGuard();
  (void)no_grad;
}

void vexing() {
  torch::NoGradGuard guard();
  c10::InferenceMode mode ( );
  work();
}
