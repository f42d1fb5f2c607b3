#include <torch/torch.h>

#include "helpers.h"

void train_step() {
#ifdef TRAINER_FLAG
  c10::GradMode::set_enabled(false); // only with the database's -DTRAINER_FLAG
#endif
  freeze_helper();
}

void extra() {
#ifdef EXTRA
  torch::NoGradGuard(); // only with -DEXTRA after `--`
#endif
}
