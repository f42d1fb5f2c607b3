#pragma once
// No #include of its own: it relies on the file that includes it (src/model.cpp).
inline void freeze_utils() { c10::GradMode::set_enabled(false); }

#include "model_utils.tpp"
