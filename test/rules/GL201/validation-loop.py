# RUN: not %check-file %s | FileCheck %s --implicit-check-not=': GL'
# RUN: not %gradlint check --no-respect-gitignore --output-format full %s | FileCheck %s --check-prefix=FULL
# The shape of diffusers' DreamBooth/LoRA scripts: the loop trains `transformer`; once per epoch
# a pipeline is built around it and handed to a validation helper that offloads the pipeline
# and never removes the hooks, so the next epoch trains an offloaded model. Reported at the
# training at the top of the loop, with the helper call and the helper's offload as related
# locations.
import copy

import torch
from diffusers import FluxPipeline


def log_validation(pipeline, args, epoch):
    pipeline = pipeline.to(dtype=torch.bfloat16)
    pipeline.enable_model_cpu_offload()
    images = [pipeline(args.prompt).images[0] for _ in range(4)]
    del pipeline
    return images


def train(args, transformer, optimizer, loader, accelerator):
    for epoch in range(args.epochs):
        # CHECK: [[@LINE+1]]:9: GL201 `transformer` (a component of `pipeline`) has offload hooks from `log_validation()` and is trained here (`transformer.train()`, on the loop's next pass)
        transformer.train()
        for batch in loader:
            loss = transformer(batch).mean()
            accelerator.backward(loss)
            optimizer.step()
            optimizer.zero_grad()
        if epoch % args.validation_epochs == 0:
            pipeline = FluxPipeline.from_pretrained(
                args.base, transformer=accelerator.unwrap_model(transformer), text_encoder=None
            )
            log_validation(pipeline=pipeline, args=args, epoch=epoch)
            del pipeline
# FULL: validation-loop.py:[[@LINE-12]]:9: GL201 `transformer` (a component of `pipeline`)
# FULL: = note: {{.*}}validation-loop.py:[[@LINE-3]]:13: `transformer` is offloaded here, with `pipeline`; the loop comes back to the training with the hooks on
# FULL-NEXT: = note: {{.*}}validation-loop.py:16:5: `enable_model_cpu_offload()` attaches the hooks here, in `log_validation()`, and leaves them on


# The helper builds the pipeline itself around the model it is given (the SD3 ControlNet
# script's shape): the argument is offloaded as a component of the helper's pipeline.
def validate_controlnet(controlnet, args, final):
    if not final:
        controlnet = args.accelerator.unwrap_model(controlnet)
    else:
        controlnet = load_controlnet(args.output_dir)
    pipeline = FluxPipeline.from_pretrained(args.base, controlnet=controlnet)
    pipeline.enable_model_cpu_offload()
    return pipeline(args.prompt).images


def load_controlnet(path):
    return path


def train_controlnet(args, controlnet, loader, accelerator):
    for step, batch in enumerate(loader):
        loss = controlnet(batch).mean()
        # CHECK: [[@LINE+1]]:9: GL201 `controlnet` has offload hooks from `validate_controlnet()` and is trained here (`backward()` through it, on the loop's next pass)
        accelerator.backward(loss)
        if step % args.validation_steps == 0:
            validate_controlnet(controlnet, args, False)


# ---- silent --------------------------------------------------------------------------------


# The validation helper takes the hooks off again before it returns.
def log_validation_and_unhook(pipeline, prompt):
    pipeline.enable_model_cpu_offload()
    images = pipeline(prompt).images
    pipeline.remove_all_hooks()
    return images


def train_with_unhooking_validation(args, transformer, loader):
    for epoch in range(args.epochs):
        transformer.train()
        for batch in loader:
            transformer(batch).mean().backward()
        pipeline = FluxPipeline.from_pretrained(args.base, transformer=transformer)
        log_validation_and_unhook(pipeline, args.prompt)


# Validation from a copy, and from a reloaded checkpoint.
def train_with_copied_validation(args, transformer, loader):
    for epoch in range(args.epochs):
        transformer.train()
        for batch in loader:
            transformer(batch).mean().backward()
        pipeline = FluxPipeline.from_pretrained(args.base, transformer=copy.deepcopy(transformer))
        log_validation(pipeline, args, epoch)
        reloaded = FluxPipeline.from_pretrained(args.output_dir)
        log_validation(reloaded, args, epoch)


# The helper builds its own model when it is not given one: the argument stays unhooked.
def validate_fresh(controlnet, args):
    controlnet = load_controlnet(args.output_dir)
    pipeline = FluxPipeline.from_pretrained(args.base, controlnet=controlnet)
    pipeline.enable_model_cpu_offload()
    return pipeline(args.prompt).images


def train_with_fresh_validation(args, controlnet, loader):
    for batch in loader:
        controlnet(batch).mean().backward()
        validate_fresh(controlnet, args)


# Validation after the training loop has ended.
def validate_at_the_end(args, transformer, loader):
    for epoch in range(args.epochs):
        transformer.train()
        for batch in loader:
            transformer(batch).mean().backward()
    pipeline = FluxPipeline.from_pretrained(args.base, transformer=transformer)
    log_validation(pipeline, args, args.epochs)
