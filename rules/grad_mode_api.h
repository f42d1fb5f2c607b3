// The catalog of PyTorch grad-mode APIs the frontends classify calls against. Data, not logic:
// extend the tables in grad_mode_api.cpp when PyTorch grows another spelling.
#pragma once

#include <string_view>

namespace gradlint::rules {

enum class GradApi : uint8_t {
  None,
  SetGradEnabled,        // torch.set_grad_enabled: toggles when called, restores as a context
  PrivateSetGradEnabled, // torch._C._set_grad_enabled and friends: a bare toggle
  IsGradEnabled,         // torch.is_grad_enabled: reads the mode (saving it)
  NoGrad,                // context managers / decorators
  EnableGrad,
  InferenceMode,
};

// Classifies a fully qualified Python name (`torch.autograd.grad_mode.no_grad`).
GradApi classifyPythonName(std::string_view qualifiedName);

// True for the context-manager classes (no_grad, enable_grad, inference_mode, set_grad_enabled).
bool isGradContext(GradApi api);

// Decorators that turn a generator into a context manager: yielding with grad disabled there is
// the point, not a leak.
bool isContextManagerDecorator(std::string_view qualifiedName);

// The spelled name used in messages.
std::string_view displayName(GradApi api);

} // namespace gradlint::rules
