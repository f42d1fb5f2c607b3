// The catalog of PyTorch grad-mode APIs the frontends classify calls against. Data, not logic:
// extend the tables in grad_mode_api.cpp when PyTorch grows another spelling.
#pragma once

#include "checkers/ir/grad_ir.h"

#include <span>
#include <string_view>

namespace gradlint::catalog {

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

// --- C++ (LibTorch) -------------------------------------------------------------------------
// Names are the qualified names of the canonical declarations, which every alias resolves to:
// `at::GradMode` and `torch::autograd::GradMode` are `c10::GradMode`, `torch::NoGradGuard` and
// `at::NoGradGuard` are `c10::NoGradGuard`, and so on.

enum class CppGradApi : uint8_t {
  None,
  SetEnabled, // c10::GradMode::set_enabled(bool)
  IsEnabled,  // c10::GradMode::is_enabled()
};

CppGradApi classifyCppFunction(std::string_view qualifiedName);

// An RAII guard type: constructing it changes a mode, destroying it restores the old one.
struct CppGuardType {
  std::string_view qualifiedName; // canonical: `c10::NoGradGuard`
  std::string_view spelling;      // how users usually write it, for messages
  ir::GuardKind kind;             // Other: dispatch-key guards, which leave grad mode alone
  bool savesGradMode;             // its destructor restores the grad mode its constructor saved
};

// The guard types (the list users extend when LibTorch grows another).
std::span<const CppGuardType> cppGuardTypes();
const CppGuardType* findCppGuard(std::string_view qualifiedName);

// Text one of which a C++ file must contain to be worth compiling (the prefilter): the short
// names of the API and of the guards, and "Guard" for aliases users define.
std::span<const std::string_view> cppMarkers();

} // namespace gradlint::catalog
