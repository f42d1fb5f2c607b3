#include "checkers/ir/diagnostic.h"
#include "checkers/ir/grad_ir.h"

#include <algorithm>

namespace gradlint {

std::string_view toString(Severity severity) {
  switch (severity) {
  case Severity::Error: return "error";
  case Severity::Warning: return "warning";
  case Severity::Info: return "info";
  }
  return "error";
}

namespace ir {

std::string_view toString(EventKind kind) {
  switch (kind) {
  case EventKind::Entry: return "Entry";
  case EventKind::Nop: return "Nop";
  case EventKind::SetGrad: return "SetGrad";
  case EventKind::SaveGrad: return "SaveGrad";
  case EventKind::RestoreGrad: return "RestoreGrad";
  case EventKind::RestoreArg: return "RestoreArg";
  case EventKind::EnterGuard: return "EnterGuard";
  case EventKind::ExitGuard: return "ExitGuard";
  case EventKind::Call: return "Call";
  case EventKind::Return: return "Return";
  case EventKind::FallThrough: return "FallThrough";
  case EventKind::Raise: return "Raise";
  case EventKind::Yield: return "Yield";
  case EventKind::Await: return "Await";
  case EventKind::NormalExit: return "NormalExit";
  case EventKind::ExceptionalExit: return "ExceptionalExit";
  case EventKind::Backward: return "Backward";
  case EventKind::Step: return "Step";
  case EventKind::ZeroGrad: return "ZeroGrad";
  case EventKind::Train: return "Train";
  case EventKind::Eval: return "Eval";
  case EventKind::Assign: return "Assign";
  case EventKind::Offload: return "Offload";
  case EventKind::ResetPlacement: return "ResetPlacement";
  case EventKind::MoveTo: return "MoveTo";
  case EventKind::Compose: return "Compose";
  case EventKind::LocalFunctionDecl: return "LocalFunctionDecl";
  case EventKind::Assume: return "Assume";
  }
  return "?";
}

std::string_view toString(GradValue value) {
  switch (value) {
  case GradValue::Enabled: return "enabled";
  case GradValue::Disabled: return "disabled";
  case GradValue::Unknown: return "unknown";
  }
  return "?";
}

std::string_view toString(GuardKind kind) {
  switch (kind) {
  case GuardKind::NoGrad: return "no_grad";
  case GuardKind::EnableGrad: return "enable_grad";
  case GuardKind::InferenceMode: return "inference_mode";
  case GuardKind::SetGradEnabled: return "set_grad_enabled";
  case GuardKind::Other: return "other";
  }
  return "?";
}

bool FunctionIR::hasDecorator(std::string_view qualified) const {
  return std::find(decorators.begin(), decorators.end(), qualified) != decorators.end();
}

std::string contextSlot(uint32_t startByte) { return "<with@" + std::to_string(startByte) + ">"; }

} // namespace ir
} // namespace gradlint
