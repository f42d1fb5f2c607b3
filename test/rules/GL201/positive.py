# RUN: not %check-file %s | FileCheck %s --implicit-check-not=': GL'
# GL201 train-after-offload: an object gets CPU/disk offload hooks (built for inference) and is
# then trained. The finding is at the first training action after the offload, once per
# offloaded object and function. Every finding is checked on the line right below its CHECK;
# anything not listed here fails the test.
import itertools

import accelerate
import bitsandbytes as bnb
import torch
from accelerate import cpu_offload as offload_to_cpu
from accelerate import (
    cpu_offload,
    cpu_offload_with_hook,
    disk_offload,
    dispatch_model,
    load_checkpoint_and_dispatch,
)
from accelerate.big_modeling import cpu_offload as big_modeling_cpu_offload
from diffusers import DiffusionPipeline, StableDiffusionPipeline
from diffusers.hooks import apply_group_offloading
from torch import optim
from transformers import AutoModelForCausalLM


# ---- diffusers: the pipeline offload methods -------------------------------------------------


# The incident: a pipeline offloaded for inference, then its UNet fine-tuned.
def finetune_unet(path, loader):
    pipe = DiffusionPipeline.from_pretrained(path)
    pipe.enable_model_cpu_offload()
    # CHECK: [[@LINE+1]]:5: GL201 `pipe` has offload hooks from `enable_model_cpu_offload()` and is trained here (`pipe.unet.train()`): the hooks move weights between CPU and GPU around each forward, so parameters, gradients and optimizer state end up on different devices ("Expected all tensors to be on the same device") or training silently goes wrong
    pipe.unet.train()
    for batch in loader:
        loss = pipe.unet(batch).mean()
        loss.backward()


def sequential_offload(path):
    pipe = StableDiffusionPipeline.from_pretrained(path)
    pipe.enable_sequential_cpu_offload()
    # CHECK: [[@LINE+1]]:5: GL201 `pipe` has offload hooks from `enable_sequential_cpu_offload()` and is trained here (`pipe.unet.requires_grad_()`): the hooks move weights
    pipe.unet.requires_grad_(True)


def group_offload(pipe):
    pipe.enable_group_offload("cuda", offload_type="leaf_level")
    # CHECK: [[@LINE+1]]:5: GL201 `pipe` has offload hooks from `enable_group_offload()` and is trained here (`pipe.transformer.train()`)
    pipe.transformer.train(True)


def diffusers_group_offloading(transformer):
    apply_group_offloading(transformer, onload_device="cuda", offload_type="block_level")
    # CHECK: [[@LINE+1]]:11: GL201 `transformer` has offload hooks from `apply_group_offloading()` and is trained here (an optimizer over its parameters)
    opt = torch.optim.AdamW(transformer.parameters(), lr=1e-4)
    return opt


# ---- accelerate: the big-modeling functions, in each import spelling ------------------------


def accelerate_cpu_offload(model):
    cpu_offload(model, execution_device="cuda")
    # CHECK: [[@LINE+1]]:5: GL201 `model` has offload hooks from `cpu_offload()` and is trained here (`model.train()`)
    model.train()


def accelerate_module_attribute(model):
    accelerate.cpu_offload(model)
    # CHECK: [[@LINE+1]]:5: GL201 `model` has offload hooks from `cpu_offload()` and is trained here (`model.train()`)
    model.train(mode=True)


def accelerate_import_alias(model):
    offload_to_cpu(model)
    # CHECK: [[@LINE+1]]:5: GL201 `model` has offload hooks from `cpu_offload()` and is trained here (`model.requires_grad_()`)
    model.requires_grad_()


def accelerate_submodule(model):
    big_modeling_cpu_offload(model)
    # CHECK: [[@LINE+1]]:5: GL201 `model` has offload hooks from `cpu_offload()` and is trained here (`model.train()`)
    model.train()


# The hook is returned with the model; the model is the same object, still hooked.
def offload_with_hook(model):
    model, hook = cpu_offload_with_hook(model, execution_device="cuda")
    # CHECK: [[@LINE+1]]:5: GL201 `model` has offload hooks from `cpu_offload_with_hook()` and is trained here (`model.train()`)
    model.train()


def offload_to_disk(model, folder):
    disk_offload(model, folder)
    # CHECK: [[@LINE+1]]:5: GL201 `model` has offload hooks from `disk_offload()` and is trained here (`model.train()`)
    model.train()


# A device map that sends part of the model to "cpu" or "disk" offloads that part.
def dispatch_with_cpu(model):
    dispatch_model(model, device_map={"encoder": 0, "decoder": "cpu"})
    # CHECK: [[@LINE+1]]:5: GL201 `model` has offload hooks from `dispatch_model()` and is trained here (`model.train()`)
    model.train()


def dispatch_with_disk(model):
    dispatch_model(model, device_map={"encoder": "cuda:0", "decoder": "disk"}, offload_dir="off")
    # CHECK: [[@LINE+1]]:5: GL201 `model` has offload hooks from `dispatch_model()` and is trained here (`model.train()`)
    model.train()


# `offload_folder=` offloads whatever the map does not fit on the GPU.
def load_and_dispatch(model, checkpoint):
    load_checkpoint_and_dispatch(model, checkpoint, device_map="auto", offload_folder="off")
    # CHECK: [[@LINE+1]]:5: GL201 `model` has offload hooks from `load_checkpoint_and_dispatch()` and is trained here (`model.train()`)
    model.train()


# ---- transformers: from_pretrained with an offloading device map ----------------------------


def from_pretrained_cpu_layers(name):
    model = AutoModelForCausalLM.from_pretrained(
        name, device_map={"model.embed_tokens": 0, "model.layers": "cpu", "lm_head": 0}
    )
    # CHECK: [[@LINE+1]]:5: GL201 `model` has offload hooks from `from_pretrained(device_map=...)` and is trained here (`model.train()`)
    model.train()


def from_pretrained_offload_folder(name):
    model = AutoModelForCausalLM.from_pretrained(name, device_map="auto", offload_folder="off")
    # CHECK: [[@LINE+1]]:11: GL201 `model` has offload hooks from `from_pretrained(device_map=...)` and is trained here (an optimizer over its parameters)
    opt = torch.optim.AdamW(model.parameters(), lr=2e-5)
    return opt


# ---- the kinds of training -------------------------------------------------------------------


def requires_grad_in_parameter_loop(pipe):
    pipe.enable_model_cpu_offload()
    for p in pipe.unet.parameters():
        # CHECK: [[@LINE+1]]:9: GL201 `pipe` has offload hooks from `enable_model_cpu_offload()` and is trained here (`requires_grad = True` on its parameters)
        p.requires_grad = True


def requires_grad_in_named_parameter_loop(pipe):
    pipe.enable_model_cpu_offload()
    for name, p in pipe.text_encoder.named_parameters():
        if "lora" in name:
            # CHECK: [[@LINE+1]]:13: GL201 `pipe` has offload hooks from `enable_model_cpu_offload()` and is trained here (`requires_grad = True` on its parameters)
            p.requires_grad = True


def optimizer_over_comprehension(pipe):
    pipe.enable_model_cpu_offload()
    # CHECK: [[@LINE+1]]:11: GL201 `pipe` has offload hooks from `enable_model_cpu_offload()` and is trained here (an optimizer over its parameters)
    opt = torch.optim.AdamW([p for p in pipe.unet.parameters() if p.requires_grad], lr=1e-4)
    return opt


# The parameters go through a variable first.
def optimizer_over_variable(pipe):
    pipe.enable_model_cpu_offload()
    unet = pipe.unet
    params = [p for p in unet.parameters() if p.requires_grad]
    # CHECK: [[@LINE+1]]:11: GL201 `pipe` has offload hooks from `enable_model_cpu_offload()` and is trained here (an optimizer over its parameters)
    opt = torch.optim.AdamW(params, lr=1e-4)
    return opt


# Parameter groups, itertools.chain, `from torch import optim`.
def optimizer_over_groups(pipe):
    pipe.enable_model_cpu_offload()
    # CHECK: [[@LINE+1]]:11: GL201 `pipe` has offload hooks from `enable_model_cpu_offload()` and is trained here (an optimizer over its parameters)
    opt = optim.AdamW(
        [{"params": itertools.chain(pipe.unet.parameters(), pipe.text_encoder.parameters())}]
    )
    return opt


# Any `*.optim.*` constructor counts: bitsandbytes' 8-bit optimizers.
def optimizer_from_bitsandbytes(pipe):
    pipe.enable_model_cpu_offload()
    # CHECK: [[@LINE+1]]:11: GL201 `pipe` has offload hooks from `enable_model_cpu_offload()` and is trained here (an optimizer over its parameters)
    opt = bnb.optim.AdamW8bit(pipe.unet.parameters(), lr=1e-4)
    return opt


# accelerator.prepare() of a model: accelerator-prepare.py.


# backward() on a value computed by calling the offloaded object (through an alias).
def backward_through_component(pipe, x):
    pipe.enable_model_cpu_offload()
    unet = pipe.unet
    loss = unet(x).sum()
    # CHECK: [[@LINE+1]]:5: GL201 `pipe` has offload hooks from `enable_model_cpu_offload()` and is trained here (`backward()` through it)
    loss.backward()


def accelerator_backward(pipe, accelerator, x):
    pipe.enable_model_cpu_offload()
    loss = pipe.unet(x).mean()
    # CHECK: [[@LINE+1]]:5: GL201 `pipe` has offload hooks from `enable_model_cpu_offload()` and is trained here (`backward()` through it)
    accelerator.backward(loss)


# ---- identity: aliases, components, .to() ----------------------------------------------------


# Training an alias of a component of the offloaded pipeline.
def alias_of_component(pipe):
    pipe.enable_sequential_cpu_offload()
    unet = pipe.unet
    # CHECK: [[@LINE+1]]:5: GL201 `pipe` has offload hooks from `enable_sequential_cpu_offload()` and is trained here (`unet.train()`)
    unet.train()


# The other way round: a component is offloaded and the whole model is trained.
def offloaded_component(pipe):
    unet = pipe.unet
    cpu_offload(unet)
    # CHECK: [[@LINE+1]]:5: GL201 `pipe.unet` has offload hooks from `cpu_offload()` and is trained here (`pipe.train()`)
    pipe.train()


# `.to(device)` moves the weights but leaves the hooks in place; the message says so.
def moved_after_offload(pipe):
    pipe.enable_model_cpu_offload()
    pipe.to("cuda")
    # CHECK: [[@LINE+1]]:5: GL201 `pipe` has offload hooks from `enable_model_cpu_offload()` and is trained here (`pipe.unet.train()`): the hooks move weights between CPU and GPU around each forward, so parameters, gradients and optimizer state end up on different devices ("Expected all tensors to be on the same device") or training silently goes wrong; `pipe.to(...)` does not remove the hooks
    pipe.unet.train()


# `pipe = pipe.to(...)` is the same object.
def moved_and_rebound(pipe):
    pipe.enable_model_cpu_offload()
    pipe = pipe.to("cuda")
    # CHECK: [[@LINE+1]]:5: GL201 `pipe` has offload hooks from `enable_model_cpu_offload()` and is trained here (`pipe.unet.train()`): {{.*}}; `pipe.to(...)` does not remove the hooks
    pipe.unet.train()


# ---- one finding per offloaded object, at the first training action ------------------------


def many_training_actions(pipe, x):
    pipe.enable_model_cpu_offload()
    # CHECK: [[@LINE+1]]:5: GL201 `pipe` has offload hooks from `enable_model_cpu_offload()` and is trained here (`pipe.unet.train()`)
    pipe.unet.train()
    pipe.unet.requires_grad_(True)
    opt = torch.optim.AdamW(pipe.unet.parameters())
    loss = pipe.unet(x).sum()
    loss.backward()
    opt.step()
    opt.zero_grad()


# Two offloaded objects, each trained: one finding each.
def two_objects(pipe, vae):
    pipe.enable_model_cpu_offload()
    cpu_offload(vae)
    # CHECK: [[@LINE+1]]:5: GL201 `vae` has offload hooks from `cpu_offload()` and is trained here (`vae.train()`)
    vae.train()
    # CHECK: [[@LINE+1]]:5: GL201 `pipe` has offload hooks from `enable_model_cpu_offload()` and is trained here (`pipe.unet.train()`)
    pipe.unet.train()


# ---- control flow -----------------------------------------------------------------------------


# Offloaded on one path only is enough.
def offload_on_one_branch(pipe, low_memory):
    if low_memory:
        pipe.enable_model_cpu_offload()
    # CHECK: [[@LINE+1]]:5: GL201 `pipe` has offload hooks from `enable_model_cpu_offload()` and is trained here (`pipe.unet.train()`)
    pipe.unet.train()


# The hooks are removed on one path only.
def reset_on_one_branch(pipe, flag):
    pipe.enable_model_cpu_offload()
    if flag:
        pipe.remove_all_hooks()
    # CHECK: [[@LINE+1]]:5: GL201 `pipe` has offload hooks from `enable_model_cpu_offload()` and is trained here (`pipe.unet.train()`)
    pipe.unet.train()


def per_item_in_loop(pipes):
    for pipe in pipes:
        pipe.enable_model_cpu_offload()
        # CHECK: [[@LINE+1]]:9: GL201 `pipe` has offload hooks from `enable_model_cpu_offload()` and is trained here (`pipe.unet.train()`)
        pipe.unet.train()


# ---- self.attr across the methods of a class ------------------------------------------------


class DreamBoothTrainer:
    def __init__(self, path):
        self.pipe = DiffusionPipeline.from_pretrained(path)
        self.pipe.enable_model_cpu_offload()

    def fit(self, loader):
        # CHECK: [[@LINE+1]]:9: GL201 `self.pipe` has offload hooks from `enable_model_cpu_offload()` and is trained here (`self.pipe.unet.train()`)
        self.pipe.unet.train()
        for batch in loader:
            loss = self.pipe.unet(batch).mean()
            loss.backward()


class LoraTrainer:
    def setup(self, path):
        self.pipe = StableDiffusionPipeline.from_pretrained(path)
        self.pipe.enable_sequential_cpu_offload()

    def configure_optimizers(self):
        # CHECK: [[@LINE+1]]:16: GL201 `self.pipe` has offload hooks from `enable_sequential_cpu_offload()` and is trained here (an optimizer over its parameters)
        return torch.optim.AdamW(self.pipe.unet.parameters(), lr=1e-4)


# `.to()` in the training method does not take off hooks the constructor attached.
class MovesFirst:
    def __init__(self, pipe):
        self.pipe = pipe
        self.pipe.enable_model_cpu_offload()

    def fit(self):
        self.pipe.to("cuda")
        # CHECK: [[@LINE+1]]:9: GL201 `self.pipe` has offload hooks from `enable_model_cpu_offload()` and is trained here (`self.pipe.unet.train()`): {{.*}}; `self.pipe.to(...)` does not remove the hooks
        self.pipe.unet.train()


# ---- helpers that offload their parameter ---------------------------------------------------


def _setup_memory_savings(pipe, sequential):
    if sequential:
        pipe.enable_sequential_cpu_offload()
    else:
        pipe.enable_model_cpu_offload()


def train_after_helper(pipe):
    _setup_memory_savings(pipe, False)
    # CHECK: [[@LINE+1]]:5: GL201 `pipe` has offload hooks from `_setup_memory_savings()` and is trained here (`pipe.unet.train()`)
    pipe.unet.train()


def prepare_for_inference(pipe):
    pipe.enable_model_cpu_offload()
    return pipe


# The helper returns its argument: the result is the same hooked object.
def train_after_returning_helper(pipe):
    pipe = prepare_for_inference(pipe)
    # CHECK: [[@LINE+1]]:5: GL201 `pipe` has offload hooks from `prepare_for_inference()` and is trained here (`pipe.unet.train()`)
    pipe.unet.train()


# ---- a script at module level ---------------------------------------------------------------

if __name__ == "__main__":
    script_pipe = DiffusionPipeline.from_pretrained("stabilityai/stable-diffusion-2-1")
    script_pipe.enable_model_cpu_offload()
    # CHECK: [[@LINE+1]]:5: GL201 `script_pipe` has offload hooks from `enable_model_cpu_offload()` and is trained here (`script_pipe.unet.train()`)
    script_pipe.unet.train()
