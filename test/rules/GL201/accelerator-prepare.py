# RUN: not %check-file %s | FileCheck %s --implicit-check-not=': GL'
# accelerator.prepare() takes models, optimizers, schedulers and data loaders together and
# readies each by its type: only a model is trained. An offloaded object that is not a model
# (a diffusion scheduler shared with the validation pipeline, the pipeline's scheduler) can be
# passed through prepare() without a finding; the model next to it still gets one.
from diffusers import DDPMScheduler, StableDiffusionPipeline


# The sampling scheduler is a component of the offloaded pipeline, but a scheduler is not a
# module: prepare() hands it back untouched.
def scheduler_built_as_scheduler(accelerator, train_dataloader):
    sampler = DDPMScheduler.from_pretrained("repo", subfolder="scheduler")
    pipe = StableDiffusionPipeline.from_pretrained("repo", scheduler=sampler)
    pipe.enable_model_cpu_offload()
    sampler, train_dataloader = accelerator.prepare(sampler, train_dataloader)
    return sampler, train_dataloader


# Twin: the same pipeline's model prepared next to it is trained with the hooks on.
def model_built_as_model(accelerator, unet, train_dataloader):
    sampler = DDPMScheduler.from_pretrained("repo", subfolder="scheduler")
    pipe = StableDiffusionPipeline.from_pretrained("repo", unet=unet, scheduler=sampler)
    pipe.enable_model_cpu_offload()
    # CHECK: [[@LINE+1]]:58: GL201 `unet` (a component of `pipe`) has offload hooks from `enable_model_cpu_offload()` and is trained here (`accelerator.prepare()` for training)
    unet, sampler, loader = accelerator.prepare(sampler, unet, train_dataloader)
    return unet, sampler, loader


# Names of unknown origin: what a scheduler, a data loader or an optimizer is called.
def named_as_schedulers(accelerator, pipe, train_dl):
    pipe.enable_model_cpu_offload()
    noise_scheduler, train_dl = accelerator.prepare(pipe.scheduler, train_dl)
    return noise_scheduler, train_dl


# Twin: a pipeline attribute named like a model; reported at that argument.
def named_as_model(accelerator, pipe, opt, train_dl):
    pipe.enable_model_cpu_offload()
    # CHECK: [[@LINE+1]]:52: GL201 `pipe` has offload hooks from `enable_model_cpu_offload()` and is trained here (`accelerator.prepare()` for training)
    opt, unet, train_dl = accelerator.prepare(opt, pipe.unet, train_dl)
    return opt, unet, train_dl


# prepare_model() readies a model for training unless evaluation_mode=True.
def prepared_for_evaluation(accelerator, pipe):
    pipe.enable_model_cpu_offload()
    return accelerator.prepare_model(pipe.unet, evaluation_mode=True)


def prepared_for_training(accelerator, pipe):
    pipe.enable_model_cpu_offload()
    # CHECK: [[@LINE+1]]:38: GL201 `pipe` has offload hooks from `enable_model_cpu_offload()` and is trained here (`accelerator.prepare()` for training)
    return accelerator.prepare_model(pipe.unet, evaluation_mode=False)


# One list of optimizer names for prepare() and for `.step()`: `optim_g`, `opt1` are optimizers
# there (a component of the offloaded pipeline or not, prepare() does not train them) ...
def named_as_optimizers(accelerator, pipe):
    pipe.enable_model_cpu_offload()
    optim_g = accelerator.prepare(pipe.optim_g)
    opt1 = accelerator.prepare(pipe.opt1)
    return optim_g, opt1, accelerator.prepare(pipe.optimiser)


# ... but "optim" starting another word is no optimizer: `optimized_unet` (a compiled model).
def named_optimized(accelerator, pipe, train_dl):
    pipe.enable_model_cpu_offload()
    # CHECK: [[@LINE+1]]:32: GL201 `pipe` has offload hooks from `enable_model_cpu_offload()` and is trained here (`accelerator.prepare()` for training)
    return accelerator.prepare(pipe.optimized_unet, train_dl)


# prepare() readies a model for training when the same call readies an optimizer or a training
# data loader. A model prepared alone, or with an evaluation loader, may be only run (a frozen
# model used for embeddings or rewards): its later training would count, its preparing does not.
def prepared_alone(accelerator, pipe):
    pipe.enable_model_cpu_offload()
    frozen = accelerator.prepare_model(pipe.text_encoder)
    return accelerator.prepare(pipe.unet), frozen


def prepared_with_evaluation_loader(accelerator, pipe, eval_dataloader):
    pipe.enable_model_cpu_offload()
    return accelerator.prepare(pipe.unet, eval_dataloader)


# Twin: prepared alone, then trained.
def prepared_alone_then_trained(accelerator, pipe, batch):
    pipe.enable_model_cpu_offload()
    unet = accelerator.prepare(pipe.unet)
    # CHECK: [[@LINE+1]]:5: GL201 `pipe` has offload hooks from `enable_model_cpu_offload()` and is trained here (`unet.train()`)
    unet.train()
    return unet(batch)
