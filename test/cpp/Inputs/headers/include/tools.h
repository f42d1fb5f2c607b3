#pragma once
#include <torch/torch.h>

// A project header: its function bodies are checked, once per run.
inline void freeze_in_header() {
  c10::GradMode::set_enabled(false);
}

template <typename T>
void predict(T& model);

#include "tools.tpp"
