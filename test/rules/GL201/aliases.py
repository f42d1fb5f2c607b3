# RUN: not %check-file %s | FileCheck %s --implicit-check-not=': GL'
# GL201 follows aliases in program order: `unet = pipe.unet` makes `unet` the pipeline's
# component from that line on, until `unet` is bound to something else.
from diffusers import DiffusionPipeline


# The alias is trained while it still names the offloaded component; rebinding it later does
# not change what was trained.
def alias_trained_then_rebound(pipe, other):
    pipe.enable_model_cpu_offload()
    unet = pipe.unet
    # CHECK: [[@LINE+1]]:5: GL201 `pipe` has offload hooks from `enable_model_cpu_offload()` and is trained here (`unet.train()`)
    unet.train()
    unet = other
    return unet


# `unet` names another model when it is trained; it becomes the component only afterwards.
def alias_bound_after_training(pipe, other):
    pipe.enable_model_cpu_offload()
    unet = other
    unet.train()
    unet = pipe.unet
    return unet
