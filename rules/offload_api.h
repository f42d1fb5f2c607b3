// The catalog of memory-saving offload APIs (diffusers, accelerate, transformers) and of the
// calls that take the hooks off again. Data for the frontends and GL201/GL202; extend the
// tables in offload_api.cpp (or, later, from configuration).
#pragma once

#include <string_view>

namespace gradlint::rules {

// `X.enable_model_cpu_offload()`-style methods that offload their receiver.
bool isOffloadMethod(std::string_view method);
// `X.remove_all_hooks()`-style methods that undo offloading of their receiver.
bool isPlacementResetMethod(std::string_view method);

enum class OffloadFunction : uint8_t {
  None,
  Offload,          // cpu_offload(X, ...): always offloads its first argument
  DispatchModel,    // dispatch_model(X, device_map=M): offloads when M puts weights on cpu/disk
  LoadAndDispatch,  // load_checkpoint_and_dispatch(X, ..., device_map=M, offload_folder=...)
  RemoveHooks,      // remove_hook_from_module(X, recurse=True)
};

// Classifies a resolved qualified name (`accelerate.cpu_offload`).
OffloadFunction classifyOffloadFunction(std::string_view qualifiedName);

// `Cls.from_pretrained(..., device_map=M)` loads with a device map like dispatch_model.
bool isPretrainedLoader(std::string_view method);

// Where a device_map string sends weights: "disk" offloads, "auto"-style strategies may, a
// single device ("cpu", "cuda:0") does not (no hooks).
enum class DeviceMapPlacement : uint8_t { OnDevice, Offloads, MayOffload };
DeviceMapPlacement classifyDeviceMapString(std::string_view value);

} // namespace gradlint::rules
