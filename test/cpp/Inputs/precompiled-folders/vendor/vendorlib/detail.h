#pragma once
#define VENDOR_RESTORE(previous) c10::GradMode::set_enabled(previous)
