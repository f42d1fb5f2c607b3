# RUN: not %check-file %s | FileCheck %s --implicit-check-not=': GL'
# A model passed to a pipeline constructor or loader as a component is part of the result:
# offloading the pipeline attaches hooks to it, and training it afterwards is reported, under
# whatever name it is trained.
import copy

import torch
from diffusers import DiffusionPipeline, FluxPipeline, StableDiffusionPipeline


def unwrap_model(model):
    return model


# `from_pretrained(..., transformer=t)`: the pipeline is built around the trained model.
def loader_keyword(transformer, base):
    pipeline = FluxPipeline.from_pretrained(base, transformer=transformer, text_encoder=None)
    pipeline.enable_model_cpu_offload()
    # CHECK: [[@LINE+1]]:5: GL201 `transformer` (a component of `pipeline`) has offload hooks from `enable_model_cpu_offload()` and is trained here (`transformer.train()`)
    transformer.train()


# Through `unwrap_model(...)` and `accelerator.unwrap_model(...)`, which return the same model.
def loader_unwrapped(transformer, unet, base, accelerator):
    pipeline = FluxPipeline.from_pretrained(base, transformer=unwrap_model(transformer))
    pipeline.enable_sequential_cpu_offload()
    # CHECK: [[@LINE+1]]:5: GL201 `transformer` (a component of `pipeline`) has offload hooks from `enable_sequential_cpu_offload()` and is trained here (`transformer.requires_grad_()`)
    transformer.requires_grad_(True)
    other = StableDiffusionPipeline.from_pretrained(base, unet=accelerator.unwrap_model(unet))
    other.enable_model_cpu_offload()
    # CHECK: [[@LINE+1]]:5: GL201 `unet` (a component of `other`) has offload hooks from `enable_model_cpu_offload()` and is trained here (`unet.train()`)
    unet.train()


# A pipeline class built from its components, by keyword and by position.
def constructor(vae, text_encoder, tokenizer, unet, scheduler):
    pipe = StableDiffusionPipeline(vae, text_encoder, tokenizer, unet=unet, scheduler=scheduler)
    pipe.enable_model_cpu_offload()
    # CHECK: [[@LINE+1]]:5: GL201 `text_encoder` (a component of `pipe`) has offload hooks from `enable_model_cpu_offload()` and is trained here (`text_encoder.train()`)
    text_encoder.train()


# A dict of components, splatted into the pipeline.
def components_dict(unet, vae, scheduler):
    components = {"unet": unet, "vae": vae, "scheduler": scheduler}
    pipe = StableDiffusionPipeline(**components)
    pipe.enable_model_cpu_offload()
    # CHECK: [[@LINE+1]]:5: GL201 `unet` (a component of `pipe`) has offload hooks from `enable_model_cpu_offload()` and is trained here (`unet.train()`)
    unet.train()


# `from_pipe(pipe)` shares every component of `pipe`, and `**pipe.components` does too.
def from_pipe(base):
    pipe = StableDiffusionPipeline.from_pretrained(base)
    other = DiffusionPipeline.from_pipe(pipe)
    other.enable_model_cpu_offload()
    # CHECK: [[@LINE+1]]:5: GL201 `pipe` (a component of `other`) has offload hooks from `enable_model_cpu_offload()` and is trained here (`pipe.unet.train()`)
    pipe.unet.train()


def splatted_components(base):
    pipe = StableDiffusionPipeline.from_pretrained(base)
    other = StableDiffusionPipeline(**pipe.components)
    other.enable_model_cpu_offload()
    # CHECK: [[@LINE+1]]:11: GL201 `pipe` (a component of `other`) has offload hooks from `enable_model_cpu_offload()` and is trained here (an optimizer over its parameters)
    opt = torch.optim.AdamW(pipe.unet.parameters())
    return opt


# `register_modules(unet=unet)` adds a component to an existing pipeline.
def registered(pipe, unet, loader):
    pipe.register_modules(unet=unet)
    pipe.enable_model_cpu_offload()
    for batch in loader:
        loss = unet(batch).mean()
        # CHECK: [[@LINE+1]]:9: GL201 `unet` (a component of `pipe`) has offload hooks from `enable_model_cpu_offload()` and is trained here (`backward()` through it)
        loss.backward()


# Deleting the pipeline does not take the hooks off the component it shared.
def deleted_pipeline(transformer, base):
    pipeline = FluxPipeline.from_pretrained(base, transformer=transformer)
    pipeline.enable_model_cpu_offload()
    del pipeline
    # CHECK: [[@LINE+1]]:5: GL201 `transformer` (a component of `pipeline`) has offload hooks from `enable_model_cpu_offload()` and is trained here (`transformer.train()`)
    transformer.train()


# ---- silent --------------------------------------------------------------------------------


# Validation from a copy of the model: the trained model gets no hooks.
def validation_from_copy(transformer, base):
    pipeline = FluxPipeline.from_pretrained(base, transformer=copy.deepcopy(transformer))
    pipeline.enable_model_cpu_offload()
    transformer.train()


# Validation from a reloaded checkpoint.
def validation_from_checkpoint(transformer, base, output_dir):
    reloaded = FluxPipeline.from_pretrained(output_dir)
    reloaded.enable_model_cpu_offload()
    transformer.train()


# A frozen text encoder and VAE offloaded beside a separately loaded model that is trained.
def frozen_parts_offloaded(text_encoder, vae, unet, base):
    pipe = StableDiffusionPipeline.from_pretrained(base, text_encoder=text_encoder, vae=vae)
    pipe.enable_model_cpu_offload()
    text_encoder.requires_grad_(False)
    vae.eval()
    unet.train()


# The component name is bound to another model before training.
def component_rebound(transformer, base, load):
    pipeline = FluxPipeline.from_pretrained(base, transformer=transformer)
    pipeline.enable_model_cpu_offload()
    transformer = load()
    transformer.train()


# Hooks taken off the whole pipeline take them off its components too.
def removed_from_pipeline(transformer, base):
    pipeline = FluxPipeline.from_pretrained(base, transformer=transformer)
    pipeline.enable_model_cpu_offload()
    pipeline.remove_all_hooks()
    transformer.train()
