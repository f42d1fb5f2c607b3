# RUN: not %check-file --select GL201 %s | FileCheck %s --implicit-check-not=': GL'
# A renamed wrapper of an offloaded model is the same model (`get_peft_model(unet, config)`),
# and a helper that returns an offloaded pipeline returns its hooks: its summary says so. A
# helper that takes the hooks off before returning returns a pipeline without them.
from diffusers import StableDiffusionPipeline
from peft import LoraConfig, get_peft_model


def wrapped_component(model_id):
    pipe = StableDiffusionPipeline.from_pretrained(model_id)
    pipe.enable_model_cpu_offload()
    lora_unet = get_peft_model(pipe.unet, LoraConfig(r=4))
    # CHECK: [[@LINE+1]]:5: GL201 `pipe` has offload hooks from `enable_model_cpu_offload()` and is trained here (`lora_unet.train()`)
    lora_unet.train()


def offloaded_pipeline(model_id):
    pipe = StableDiffusionPipeline.from_pretrained(model_id)
    pipe.enable_model_cpu_offload()
    return pipe


def pipeline_without_hooks(model_id):
    pipe = StableDiffusionPipeline.from_pretrained(model_id)
    pipe.enable_model_cpu_offload()
    pipe.remove_all_hooks()
    return pipe


def train_returned(model_id):
    pipe = offloaded_pipeline(model_id)
    # CHECK: [[@LINE+1]]:5: GL201 `pipe` has offload hooks from `offloaded_pipeline()` and is trained here (`pipe.unet.train()`)
    pipe.unet.train()


def train_returned_without_hooks(model_id):
    pipe = pipeline_without_hooks(model_id)
    pipe.unet.train()
