#include "rules/offload_api.h"

#include <array>
#include <utility>

namespace gradlint::rules {
namespace {

constexpr std::array<std::string_view, 3> kOffloadMethods = {
    "enable_model_cpu_offload", "enable_sequential_cpu_offload", "enable_group_offload"};

constexpr std::array<std::string_view, 2> kResetMethods = {"remove_all_hooks",
                                                           "reset_device_map"};

// Functions by their last name component, for the packages that export them (accelerate
// re-exports from accelerate.big_modeling and accelerate.hooks; diffusers from diffusers.hooks).
constexpr std::array kOffloadFunctions = {
    std::pair{std::string_view("cpu_offload"), OffloadFunction::Offload},
    std::pair{std::string_view("cpu_offload_with_hook"), OffloadFunction::Offload},
    std::pair{std::string_view("disk_offload"), OffloadFunction::Offload},
    std::pair{std::string_view("apply_group_offloading"), OffloadFunction::Offload},
    std::pair{std::string_view("dispatch_model"), OffloadFunction::DispatchModel},
    std::pair{std::string_view("load_checkpoint_and_dispatch"), OffloadFunction::LoadAndDispatch},
    std::pair{std::string_view("remove_hook_from_module"), OffloadFunction::RemoveHooks},
};

constexpr std::array<std::string_view, 2> kOffloadPackages = {"accelerate.", "diffusers."};

// Strategies under which accelerate places what does not fit on the GPU on cpu or disk.
constexpr std::array<std::string_view, 4> kAutoMaps = {"auto", "balanced", "balanced_low_0",
                                                       "sequential"};

template <typename Table> bool contains(const Table& table, std::string_view value) {
  for (std::string_view entry : table) {
    if (entry == value) return true;
  }
  return false;
}

} // namespace

bool isOffloadMethod(std::string_view method) { return contains(kOffloadMethods, method); }

bool isPlacementResetMethod(std::string_view method) { return contains(kResetMethods, method); }

OffloadFunction classifyOffloadFunction(std::string_view qualifiedName) {
  bool known = false;
  for (std::string_view package : kOffloadPackages) known = known || qualifiedName.starts_with(package);
  if (!known) return OffloadFunction::None;
  const std::string_view last = qualifiedName.substr(qualifiedName.rfind('.') + 1);
  for (const auto& [name, kind] : kOffloadFunctions) {
    if (name == last) return kind;
  }
  return OffloadFunction::None;
}

bool isPretrainedLoader(std::string_view method) { return method == "from_pretrained"; }

DeviceMapPlacement classifyDeviceMapString(std::string_view value) {
  // A whole model on one device gets no hooks (dispatch_model just calls .to()); only "disk"
  // offloads on its own. Mixed maps are judged by the caller.
  if (value == "disk") return DeviceMapPlacement::Offloads;
  if (contains(kAutoMaps, value)) return DeviceMapPlacement::MayOffload;
  return DeviceMapPlacement::OnDevice; // "cuda", "cuda:0", a device index
}

} // namespace gradlint::rules
