#include "checkers/catalog/offload_api.h"

#include "checkers/ir/ascii.h"

#include <algorithm>
#include <array>
#include <string>
#include <utility>

namespace gradlint::catalog {
namespace {

constexpr std::array<std::string_view, 3> kOffloadMethods = {
    "enable_model_cpu_offload", "enable_sequential_cpu_offload", "enable_group_offload"};

constexpr std::array kResetMethods = {
    std::pair{std::string_view("remove_all_hooks"), ResetScope::AllHooks},
    std::pair{std::string_view("reset_device_map"), ResetScope::DeviceMapLoad},
};

constexpr std::array<std::string_view, 3> kComponentLoaders = {"from_pretrained", "from_pipe",
                                                               "from_single_file"};

// from_pretrained / pipeline keyword arguments that configure the load (diffusers' and
// transformers' documented options) rather than pass a component.
constexpr std::array<std::string_view, 24> kLoaderOptions = {
    "revision",          "variant",          "torch_dtype",       "dtype",
    "cache_dir",         "subfolder",        "use_safetensors",   "local_files_only",
    "token",             "use_auth_token",   "device_map",        "max_memory",
    "offload_folder",    "offload_state_dict", "low_cpu_mem_usage", "quantization_config",
    "custom_pipeline",   "custom_revision",  "trust_remote_code", "force_download",
    "proxies",           "output_loading_info", "mirror",         "config"};

// Names whose result is the model passed in, or wraps the same modules (hooks included).
constexpr std::array<std::string_view, 3> kSameModelCalls = {
    "unwrap_model", "get_peft_model", "prepare_model_for_kbit_training"};
constexpr std::array<std::string_view, 6> kModuleMoveMethods = {"to",    "cuda",     "cpu",
                                                                "float", "bfloat16", "half"};

// Trainer classes by the package that exports them (first name component) and their last name.
struct TrainerPackage {
  std::string_view package;
  std::string_view library;
  TrainerStyle style;
};
constexpr std::array kTrainerPackages = {
    TrainerPackage{"transformers", "transformers", TrainerStyle::TrainMethod},
    TrainerPackage{"trl", "TRL", TrainerStyle::TrainMethod},
    TrainerPackage{"pytorch_lightning", "Lightning", TrainerStyle::FitMethod},
    TrainerPackage{"lightning", "Lightning", TrainerStyle::FitMethod},
};

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
    std::pair{std::string_view("remove_hook_from_submodules"), OffloadFunction::RemoveAllHooks},
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

ResetScope classifyResetMethod(std::string_view method) {
  for (const auto& [name, scope] : kResetMethods) {
    if (name == method) return scope;
  }
  return ResetScope::None;
}

bool isComponentLoader(std::string_view receiver, std::string_view method) {
  if (method == "from_pipe") return true;
  if (!contains(kComponentLoaders, method)) return false;
  const std::string_view last = receiver.substr(receiver.rfind('.') + 1);
  return last.find("Pipeline") != std::string_view::npos ||
         last.find("pipeline") != std::string_view::npos;
}

bool isLoaderOption(std::string_view keyword) { return contains(kLoaderOptions, keyword); }
bool takesPositionalComponents(std::string_view method) { return method == "from_pipe"; }
bool isComponentRegistration(std::string_view method) { return method == "register_modules"; }

bool isComponentClass(std::string_view qualifiedName) {
  const std::string_view last = qualifiedName.substr(qualifiedName.rfind('.') + 1);
  return last.ends_with("Pipeline") && (qualifiedName.starts_with("diffusers.") ||
                                        qualifiedName.find('.') == std::string_view::npos);
}

bool returnsSameModel(std::string_view lastName) { return contains(kSameModelCalls, lastName); }
bool isModuleMoveMethod(std::string_view method) { return contains(kModuleMoveMethods, method); }

bool wrapsFirstArgument(std::string_view receiver, std::string_view method) {
  // accelerate's prepare_model(m) returns m, or m wrapped for distributed training.
  if (method == "prepare_model") return receiver.ends_with("accelerator");
  if (method != "from_pretrained") return false;
  const std::string_view last = receiver.substr(receiver.rfind('.') + 1);
  return last.starts_with("PeftModel") || last.starts_with("PeftMixedModel");
}

TrainerClass classifyTrainerClass(std::string_view qualifiedName) {
  const std::string_view last = qualifiedName.substr(qualifiedName.rfind('.') + 1);
  if (!last.ends_with("Trainer")) return {};
  const std::string_view package = qualifiedName.substr(0, qualifiedName.find('.'));
  if (package.size() == qualifiedName.size()) return {}; // a bare name: a project's own class
  for (const TrainerPackage& entry : kTrainerPackages) {
    if (entry.package == package) return {entry.style, entry.library};
  }
  return {};
}

OffloadFunction classifyOffloadFunction(std::string_view qualifiedName) {
  bool known = false;
  for (std::string_view package : kOffloadPackages)
    known = known || qualifiedName.starts_with(package);
  if (!known) return OffloadFunction::None;
  const std::string_view last = qualifiedName.substr(qualifiedName.rfind('.') + 1);
  for (const auto& [name, kind] : kOffloadFunctions) {
    if (name == last) return kind;
  }
  return OffloadFunction::None;
}

bool buildsNonModule(std::string_view qualifiedName) {
  const std::string lower = asciiLower(qualifiedName);
  // torch.optim.* (lr_scheduler too), bitsandbytes.optim.*, transformers.optimization.*,
  // get_scheduler, DDPMScheduler.from_pretrained, torch.utils.data.DataLoader
  return lower.starts_with("torch.optim.") || lower.find(".optim.") != std::string::npos ||
         lower.find(".optimization.") != std::string::npos ||
         lower.find("schedul") != std::string::npos ||
         lower.find("dataloader") != std::string::npos || lower.ends_with("optimizer");
}

namespace {

// The last name component in ASCII lower case: `self.optimizer_G` -> `optimizer_g`.
std::string lowerLastName(std::string_view name) {
  return asciiLower(name.substr(name.rfind('.') + 1));
}

// `optim` as an optimizer's word: the abbreviation (`optim`, `g_optim`, `optim2`, accelerate's
// `DummyOptim`, `optims[0]`) or the start of "optimizer"/"optimiser"; not the start of
// "optimized", "optimal" or "optimum" (`optimized_model = torch.compile(model)` is a model).
bool hasOptimizerWord(std::string_view lower) {
  for (size_t at = lower.find("optim"); at != std::string_view::npos;
       at = lower.find("optim", at + 1)) {
    std::string_view rest = lower.substr(at + 5);
    if (rest.starts_with('s')) rest.remove_prefix(1);
    if (rest.empty() || rest.front() < 'a' || rest.front() > 'z' || rest.starts_with("izer") ||
        rest.starts_with("iser")) {
      return true;
    }
  }
  return false;
}

bool lowerNamedAsOptimizer(std::string_view lower) {
  if (lower.find("sched") != std::string_view::npos) return false; // optim_scheduler
  return hasOptimizerWord(lower) || lower == "opt" || lower.starts_with("opt_") ||
         lower.ends_with("_opt") ||
         (lower.size() == 4 && lower.starts_with("opt") && lower[3] >= '0' && lower[3] <= '9');
}

} // namespace

bool namedAsOptimizer(std::string_view name) { return lowerNamedAsOptimizer(lowerLastName(name)); }

bool namedAsNonModule(std::string_view name) {
  const std::string lower = lowerLastName(name);
  return lowerNamedAsOptimizer(lower) || lower.find("sched") != std::string::npos ||
         lower.find("loader") != std::string::npos || lower == "dl" || lower.ends_with("_dl") ||
         lower.starts_with("dl_");
}

bool isOffloadVocabulary(std::string_view name, bool called) {
  if (name == "hf_device_map" || name == kQuantizedCpuOffloadOption || isLoaderOption(name)) {
    return true;
  }
  if (!called) return false;
  if (isOffloadMethod(name) || classifyResetMethod(name) != ResetScope::None ||
      buildsAutomaticDeviceMap(name)) {
    return true;
  }
  return std::any_of(kOffloadFunctions.begin(), kOffloadFunctions.end(),
                     [&](const auto& entry) { return entry.first == name; });
}

bool isPretrainedLoader(std::string_view method) { return method == "from_pretrained"; }

bool buildsAutomaticDeviceMap(std::string_view functionName) {
  return functionName.substr(functionName.rfind('.') + 1) == "infer_auto_device_map";
}

bool expectsRaise(std::string_view qualifiedName) {
  const std::string_view last = qualifiedName.substr(qualifiedName.rfind('.') + 1);
  if (last == "raises") return qualifiedName == "pytest.raises";
  return last == "assertRaises" || last == "assertRaisesRegex" || last == "assertRaisesRegexp" ||
         last == "assert_raises" || last == "assert_raises_regex" || last == "assert_exception";
}

DeviceMapPlacement classifyDeviceMapString(std::string_view value) {
  // A whole model on one device gets no hooks (dispatch_model just calls .to()); only "disk"
  // offloads on its own. Mixed maps are judged by the caller.
  if (value == "disk") return DeviceMapPlacement::Offloads;
  if (contains(kAutoMaps, value)) return DeviceMapPlacement::MayOffload;
  return DeviceMapPlacement::OnDevice; // "cuda", "cuda:0", a device index
}

namespace {

// Families published without a size tag, all under 1B parameters (gpt2-large: 774M).
constexpr std::array<std::string_view, 10> kSmallFamilies = {
    "gpt2",     "distilgpt2", "distilbert",    "bert-base",    "roberta-base",
    "albert-base", "t5-small", "t5-base", "flan-t5-small", "flan-t5-base"};

// A size tag in billions: `350m` 0.35, `7b` 7, `0.5b` 0.5, `1b7` (BLOOM's 1.7B) 1.7. Negative
// when `token` is none.
double sizeTagBillions(std::string_view token) {
  size_t at = 0;
  auto digits = [&] {
    const size_t start = at;
    while (at < token.size() && token[at] >= '0' && token[at] <= '9') ++at;
    return token.substr(start, at - start);
  };
  auto number = [](std::string_view whole, std::string_view fraction) {
    double value = 0;
    for (char c : whole) value = value * 10 + (c - '0');
    double scale = 0.1;
    for (char c : fraction) value += (c - '0') * scale, scale /= 10;
    return value;
  };
  const std::string_view whole = digits();
  if (whole.empty() || at == token.size()) return -1;
  std::string_view fraction;
  if (token[at] == '.') {
    ++at;
    fraction = digits();
    if (fraction.empty() || at == token.size()) return -1;
  }
  const char unit = token[at++];
  if (unit != 'm' && unit != 'b') return -1;
  if (unit == 'b' && fraction.empty() && at < token.size()) fraction = digits(); // `1b7`
  if (at != token.size()) return -1;
  const double value = number(whole, fraction);
  return unit == 'm' ? value / 1000 : value;
}

} // namespace

bool namesSmallCheckpoint(std::string_view id) {
  const std::string name = asciiLower(id.substr(id.rfind('/') + 1));
  if (name.empty() || id.find("://") != std::string_view::npos) return false;
  double largest = -1;
  size_t start = 0;
  while (start <= name.size()) {
    size_t end = name.find_first_of("-_", start);
    if (end == std::string::npos) end = name.size();
    largest = std::max(largest, sizeTagBillions(std::string_view(name).substr(start, end - start)));
    start = end + 1;
  }
  if (largest >= 0) return largest < 1;
  if (name.find("tiny") != std::string::npos) return true;
  for (std::string_view family : kSmallFamilies) {
    if (name == family || (name.starts_with(family) && name[family.size()] == '-' &&
                           family != "gpt2")) {
      return true; // `bert-base-uncased`, not `gpt2-xl`
    }
  }
  return name == "gpt2-medium" || name == "gpt2-large";
}

bool isBitsAndBytesConfig(std::string_view qualifiedName) {
  return qualifiedName.substr(qualifiedName.rfind('.') + 1) == "BitsAndBytesConfig";
}

bool isQuantizedLoadOption(std::string_view keyword) {
  return keyword == "load_in_8bit" || keyword == "load_in_4bit";
}

} // namespace gradlint::catalog
