# RUN: not %check-file %s | FileCheck %s --implicit-check-not=': GL'
# The resets by what they really take off: `remove_all_hooks()` every hook of the pipeline and
# its components, accelerate's `remove_hook_from_module(m, recurse=True)` every hook of `m`;
# diffusers' `reset_device_map()` only what a `device_map` load attached (it returns early
# otherwise); `.to(device)` none.
from accelerate import cpu_offload
from accelerate.hooks import remove_hook_from_module
from diffusers import DiffusionPipeline


# After `enable_model_cpu_offload()`, `reset_device_map()` does nothing: the hooks stay.
def reset_device_map_after_offload(pipe):
    pipe.enable_model_cpu_offload()
    pipe.reset_device_map()
    # CHECK: [[@LINE+1]]:5: GL201 `pipe` has offload hooks from `enable_model_cpu_offload()` and is trained here (`pipe.unet.train()`)
    pipe.unet.train()


# `.to(device)` moves the weights, the hooks stay.
def moved_component(transformer, base):
    pipeline = DiffusionPipeline.from_pretrained(base, transformer=transformer)
    pipeline.enable_model_cpu_offload()
    transformer.to("cuda")
    # CHECK: [[@LINE+1]]:5: GL201 `transformer` (a component of `pipeline`) has offload hooks from `enable_model_cpu_offload()` and is trained here (`transformer.train()`): {{.*}}; `transformer.to(...)` does not remove the hooks
    transformer.train()


# Removing the hooks of the component alone, not recursively, leaves its submodules' hooks.
def not_recursive(model):
    cpu_offload(model)
    remove_hook_from_module(model)
    # CHECK: [[@LINE+1]]:5: GL201 `model` has offload hooks from `cpu_offload()` and is trained here (`model.train()`)
    model.train()


# ---- silent --------------------------------------------------------------------------------


# A device_map load is undone by `reset_device_map()`.
def reset_device_map_after_device_map_load(base):
    pipe = DiffusionPipeline.from_pretrained(base, device_map={"unet": 0, "vae": "cpu"})
    pipe.reset_device_map()
    pipe.unet.train()


def remove_all_hooks_from_pipeline(transformer, base):
    pipeline = DiffusionPipeline.from_pretrained(base, transformer=transformer)
    pipeline.enable_model_cpu_offload()
    pipeline.remove_all_hooks()
    transformer.train()


def remove_hook_from_component(transformer, base):
    pipeline = DiffusionPipeline.from_pretrained(base, transformer=transformer)
    pipeline.enable_sequential_cpu_offload()
    remove_hook_from_module(transformer, recurse=True)
    transformer.train()
