#pragma once

#include <torch/torch.h>

inline void freeze_helper() { c10::GradMode::set_enabled(false); }
