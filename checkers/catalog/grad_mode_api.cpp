#include "checkers/catalog/grad_mode_api.h"

#include <array>
#include <utility>

namespace gradlint::catalog {
namespace {

using Entry = std::pair<std::string_view, GradApi>;

// Every public path PyTorch exports each API under.
constexpr std::array kPythonApis = {
    Entry{"torch.set_grad_enabled", GradApi::SetGradEnabled},
    Entry{"torch.autograd.set_grad_enabled", GradApi::SetGradEnabled},
    Entry{"torch.autograd.grad_mode.set_grad_enabled", GradApi::SetGradEnabled},
    Entry{"torch._C._set_grad_enabled", GradApi::PrivateSetGradEnabled},
    Entry{"torch._C.set_grad_enabled", GradApi::PrivateSetGradEnabled},
    Entry{"torch.autograd.grad_mode._set_grad_enabled", GradApi::PrivateSetGradEnabled},
    Entry{"torch.is_grad_enabled", GradApi::IsGradEnabled},
    Entry{"torch._C.is_grad_enabled", GradApi::IsGradEnabled},
    Entry{"torch._C._is_grad_enabled", GradApi::IsGradEnabled},
    Entry{"torch.autograd.grad_mode.is_grad_enabled", GradApi::IsGradEnabled},
    Entry{"torch.no_grad", GradApi::NoGrad},
    Entry{"torch.autograd.no_grad", GradApi::NoGrad},
    Entry{"torch.autograd.grad_mode.no_grad", GradApi::NoGrad},
    Entry{"torch.enable_grad", GradApi::EnableGrad},
    Entry{"torch.autograd.enable_grad", GradApi::EnableGrad},
    Entry{"torch.autograd.grad_mode.enable_grad", GradApi::EnableGrad},
    Entry{"torch.inference_mode", GradApi::InferenceMode},
    Entry{"torch.autograd.inference_mode", GradApi::InferenceMode},
    Entry{"torch.autograd.grad_mode.inference_mode", GradApi::InferenceMode},
};

constexpr std::array<std::string_view, 3> kContextManagerDecorators = {
    "contextlib.contextmanager", "contextlib.asynccontextmanager",
    "torch._contextlib.contextmanager"};

} // namespace

GradApi classifyPythonName(std::string_view qualifiedName) {
  if (!qualifiedName.starts_with("torch.")) return GradApi::None;
  for (const auto& [name, api] : kPythonApis) {
    if (name == qualifiedName) return api;
  }
  return GradApi::None;
}

bool isGradContext(GradApi api) {
  return api == GradApi::SetGradEnabled || api == GradApi::NoGrad ||
         api == GradApi::EnableGrad || api == GradApi::InferenceMode;
}

bool isContextManagerDecorator(std::string_view qualifiedName) {
  for (std::string_view name : kContextManagerDecorators) {
    if (name == qualifiedName) return true;
  }
  return false;
}

std::string_view displayName(GradApi api) {
  switch (api) {
  case GradApi::SetGradEnabled: return "torch.set_grad_enabled";
  case GradApi::PrivateSetGradEnabled: return "torch._C._set_grad_enabled";
  case GradApi::IsGradEnabled: return "torch.is_grad_enabled";
  case GradApi::NoGrad: return "torch.no_grad";
  case GradApi::EnableGrad: return "torch.enable_grad";
  case GradApi::InferenceMode: return "torch.inference_mode";
  case GradApi::None: break;
  }
  return "";
}

namespace {

constexpr std::array kCppFunctions = {
    std::pair<std::string_view, CppGradApi>{"c10::GradMode::set_enabled", CppGradApi::SetEnabled},
    std::pair<std::string_view, CppGradApi>{"c10::GradMode::is_enabled", CppGradApi::IsEnabled},
};

// Aliases need no entry: `at::`, `torch::` and `torch::autograd::` spellings resolve to these.
constexpr std::array kCppGuards = {
    CppGuardType{"c10::NoGradGuard", "torch::NoGradGuard", ir::GuardKind::NoGrad, true},
    CppGuardType{"c10::AutoGradMode", "torch::AutoGradMode", ir::GuardKind::SetGradEnabled, true},
    CppGuardType{"c10::InferenceMode", "c10::InferenceMode", ir::GuardKind::InferenceMode, true},
    CppGuardType{"at::AutoDispatchBelowADInplaceOrView", "at::AutoDispatchBelowADInplaceOrView",
                 ir::GuardKind::Other, false},
    CppGuardType{"at::AutoDispatchBelowAutograd", "at::AutoDispatchBelowAutograd",
                 ir::GuardKind::Other, false},
};

// Grad mode, then the training loop's calls (GL301-GL305): `backward`, `zero_grad`, `eval(`
// (also `train(false)`'s file: one names the other).
constexpr std::array<std::string_view, 9> kCppMarkers = {
    "GradMode",    "Guard",    "InferenceMode", "AutoDispatchBelow", "set_enabled",
    "is_enabled", "backward", "zero_grad",     "eval("};

} // namespace

CppGradApi classifyCppFunction(std::string_view qualifiedName) {
  for (const auto& [name, api] : kCppFunctions) {
    if (name == qualifiedName) return api;
  }
  return CppGradApi::None;
}

std::span<const CppGuardType> cppGuardTypes() { return kCppGuards; }

const CppGuardType* findCppGuard(std::string_view qualifiedName) {
  for (const CppGuardType& guard : kCppGuards) {
    if (guard.qualifiedName == qualifiedName) return &guard;
  }
  return nullptr;
}

std::span<const std::string_view> cppMarkers() { return kCppMarkers; }

} // namespace gradlint::catalog
