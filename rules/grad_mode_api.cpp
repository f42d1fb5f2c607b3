#include "rules/grad_mode_api.h"

#include <array>
#include <utility>

namespace gradlint::rules {
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

} // namespace gradlint::rules
