#pragma once
#include <torch/torch.h>

inline void freeze_helper() { at::GradMode::set_enabled(false); }
