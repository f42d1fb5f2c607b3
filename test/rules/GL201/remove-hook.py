# RUN: not %check-file %s | FileCheck %s --implicit-check-not=': GL'
# accelerate's `remove_hook_from_module(module, recurse=False)` removes the hook of `module`
# only; `cpu_offload()` and `dispatch_model()` attach hooks to the submodules too, so only
# `recurse=True` takes the model off offloading.
from accelerate import cpu_offload
from accelerate.hooks import remove_hook_from_module


def recursive_removal(model):
    cpu_offload(model)
    remove_hook_from_module(model, recurse=True)
    model.train()


def default_is_not_recursive(model):
    cpu_offload(model)
    remove_hook_from_module(model)
    # CHECK: [[@LINE+1]]:5: GL201 `model` has offload hooks from `cpu_offload()` and is trained here (`model.train()`)
    model.train()


def explicitly_not_recursive(model):
    cpu_offload(model)
    remove_hook_from_module(model, recurse=False)
    # CHECK: [[@LINE+1]]:5: GL201 `model` has offload hooks from `cpu_offload()` and is trained here (`model.train()`)
    model.train()
