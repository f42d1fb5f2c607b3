// The catalog of memory-saving offload APIs (diffusers, accelerate, transformers) and of the
// calls that take the hooks off again. Data for the frontends and GL201/GL202; extend the
// tables in offload_api.cpp (or, later, from configuration).
#pragma once

#include <string_view>

namespace gradlint::catalog {

// `X.enable_model_cpu_offload()`-style methods that offload their receiver.
bool isOffloadMethod(std::string_view method);

// What a reset takes off: every hook (`remove_all_hooks()`), or only what a device_map load
// attached (diffusers' `reset_device_map()` returns early unless the pipeline was loaded with
// one, so after `enable_model_cpu_offload()` it leaves the hooks).
enum class ResetScope : uint8_t { None, AllHooks, DeviceMapLoad };
// `X.remove_all_hooks()`-style methods that undo offloading of their receiver.
ResetScope classifyResetMethod(std::string_view method);

enum class OffloadFunction : uint8_t {
  None,
  Offload,          // cpu_offload(X, ...): always offloads its first argument
  DispatchModel,    // dispatch_model(X, device_map=M): offloads when M puts weights on cpu/disk
  LoadAndDispatch,  // load_checkpoint_and_dispatch(X, ..., device_map=M, offload_folder=...)
  RemoveHooks,      // remove_hook_from_module(X, recurse=True)
  RemoveAllHooks,   // remove_hook_from_submodules(X): X's hooks and those of every submodule
};

// Classifies a resolved qualified name (`accelerate.cpu_offload`).
OffloadFunction classifyOffloadFunction(std::string_view qualifiedName);

// Whether the lowering may read `name` (an identifier containing `offload`, `device_map` or
// `dispatch`) as an offload API: the catalog's functions and methods (`cpu_offload`,
// `enable_model_cpu_offload`, `reset_device_map`) when `called`, its keyword options
// (`device_map`, `offload_folder`) and `hf_device_map` wherever. The prefilter parses no chunk
// for those words elsewhere (FSDP's `offload_params`, its `self.cpu_offload` setting, RPC's
// `device_maps`, torch's `__torch_dispatch__`).
bool isOffloadVocabulary(std::string_view name, bool called);

// `Cls.from_pretrained(..., device_map=M)` loads with a device map like dispatch_model.
bool isPretrainedLoader(std::string_view method);

// A call that computes a device map from the machine's memory (accelerate's
// `infer_auto_device_map`): it may send layers to cpu or disk, like "auto".
bool buildsAutomaticDeviceMap(std::string_view functionName);

// A context manager that asserts its block raises (`self.assertRaises(E)`, `pytest.raises(E)`,
// accelerate's `assert_exception(E, ...)`): the block is a negative test, what it does is
// expected to fail, not what the code does.
bool expectsRaise(std::string_view qualifiedName);

// Containers of models (GL201/GL202 follow offloading into their components):
// `X.from_pretrained(..., unet=u)`, `X.from_pipe(p, ...)`: loaders; `register_modules(unet=u)`.
// `receiver`: the class or object it is called on, as written (`FluxPipeline`,
// `self.pipeline_class`): only a pipeline's `from_pretrained` takes components.
bool isComponentLoader(std::string_view receiver, std::string_view method);
// Keyword options of the loaders and pipelines that are settings, not components
// (`revision=args.revision`, `torch_dtype=weight_dtype`).
bool isLoaderOption(std::string_view keyword);
bool takesPositionalComponents(std::string_view method); // from_pipe(pipe): shares all of pipe
bool isComponentRegistration(std::string_view method);
// A class built from components by name: diffusers pipelines (`StableDiffusionPipeline`).
bool isComponentClass(std::string_view qualifiedName);
// Calls that return the model they are given, or a wrapper around the same modules
// (`accelerator.unwrap_model(m)`, peft's `get_peft_model(m, config)`), by their last name.
bool returnsSameModel(std::string_view lastName);
// `PeftModel.from_pretrained(model, adapter_path)`: a loader that wraps the model it is given
// (its first argument) in an adapter instead of loading a new one; `accelerator.prepare_model(m)`.
// `receiver` as written.
bool wrapsFirstArgument(std::string_view receiver, std::string_view method);
// `.to(device)`-style methods that return their receiver.
bool isModuleMoveMethod(std::string_view method);

// Trainers that train the model they are given.
enum class TrainerStyle : uint8_t {
  None,
  TrainMethod, // transformers' Trainer, TRL's SFTTrainer...: `Trainer(model=m).train()`
  FitMethod,   // Lightning's Trainer: `trainer.fit(m)`
};
struct TrainerClass {
  TrainerStyle style = TrainerStyle::None;
  std::string_view library; // for messages: "transformers", "TRL", "Lightning"
};
TrainerClass classifyTrainerClass(std::string_view qualifiedName);

// `accelerator.prepare(model, optimizer, dataloader, scheduler)` readies each object by its
// type; only models are trained. These say what is not one: an optimizer, learning-rate
// scheduler or data loader, by the call that built it (a resolved qualified name:
// `torch.optim.AdamW`, `transformers.get_scheduler`, `torch.utils.data.DataLoader`) or, for a
// name of unknown origin, by the name such objects go by (`lr_scheduler`, `train_dataloader`).
bool buildsNonModule(std::string_view qualifiedName);
bool namedAsNonModule(std::string_view name); // an optimizer's, scheduler's or data loader's name
// What an optimizer of unknown origin is called (`optimizer`, `opt`, `g_optim`, `optimizer_D`),
// by its last name component: what the frontends take `X.step()` on for an optimizer's step
// (not a scheduler's or an environment's). namedAsNonModule holds each of these names.
bool namedAsOptimizer(std::string_view name);

// Where a device_map string sends weights: "disk" offloads, "auto"-style strategies may, a
// single device ("cpu", "cuda:0") does not (no hooks).
enum class DeviceMapPlacement : uint8_t { OnDevice, Offloads, MayOffload };
DeviceMapPlacement classifyDeviceMapString(std::string_view value);

// A Hugging Face checkpoint id (`facebook/opt-350m`) whose name says the model has fewer than
// 1B parameters: its largest size tag (`350m`, `0.5B`, `1b7`) is under 1B or, without a tag, the
// name says `tiny` or is a known small family (`gpt2`, `t5-small`). An automatic device map
// keeps such a model (under 4 GB of float32 weights) whole on any GPU that trains: no hooks.
bool namesSmallCheckpoint(std::string_view id);

// bitsandbytes quantization (`quantization_config=BitsAndBytesConfig(load_in_4bit=True)`, or
// `load_in_8bit=True` on the loader): transformers refuses to load (ValueError "Some modules
// are dispatched on the CPU or the disk") when the map puts layers on cpu or disk, unless the
// config sets this option. An automatic map then fails loudly instead of offloading.
bool isBitsAndBytesConfig(std::string_view qualifiedName);
bool isQuantizedLoadOption(std::string_view keyword); // load_in_8bit, load_in_4bit
inline constexpr std::string_view kQuantizedCpuOffloadOption = "llm_int8_enable_fp32_cpu_offload";

} // namespace gradlint::catalog
