# RUN: not %check-file %s | FileCheck %s --implicit-check-not=': GL'
# Moving one component of an offloaded pipeline (`unet = pipe.unet.to("cuda")`) returns the
# same module with its hook still attached: the new name is the component, and training it is
# GL201. Only a hook removal takes the hooks off: `remove_all_hooks()`,
# `remove_hook_from_module(m, recurse=True)`, `remove_hook_from_submodules(m)`.
import torch
from accelerate.hooks import remove_hook_from_module, remove_hook_from_submodules
from diffusers import StableDiffusionPipeline
from transformers import Trainer


def train_moved_unet(model_id, loader):
    pipe = StableDiffusionPipeline.from_pretrained(model_id)
    pipe.enable_model_cpu_offload()
    unet = pipe.unet.to("cuda")
    # CHECK: [[@LINE+1]]:5: GL201 `pipe` has offload hooks from `enable_model_cpu_offload()` and is trained here (`unet.train()`): {{.*}}; `pipe.unet.to(...)` does not remove the hooks
    unet.train()
    optimizer = torch.optim.AdamW(unet.parameters(), lr=1e-4)
    for batch in loader:
        loss = unet(batch).sample.mean()
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()


# An optimizer over the moved component's parameters is training too.
def optimizer_over_moved_unet(model_id):
    pipe = StableDiffusionPipeline.from_pretrained(model_id)
    pipe.enable_model_cpu_offload()
    unet = pipe.unet.to(device="cuda", dtype=torch.float16)
    # CHECK: [[@LINE+1]]:12: GL201 `pipe` has offload hooks from `enable_model_cpu_offload()` and is trained here (an optimizer over its parameters): {{.*}}; `pipe.unet.to(...)` does not remove the hooks
    return torch.optim.AdamW(unet.parameters(), lr=1e-4)


# A chain of moves is the same module; a trainer given it trains it.
def trainer_over_moved_unet(model_id, data):
    pipe = StableDiffusionPipeline.from_pretrained(model_id)
    pipe.enable_sequential_cpu_offload()
    unet = pipe.unet.half().cuda()
    # CHECK: [[@LINE+1]]:5: GL201 `pipe` has offload hooks from `enable_sequential_cpu_offload()` and is trained here (`Trainer.train()` (transformers `Trainer`))
    Trainer(model=unet, train_dataset=data).train()


# Moved in the constructor, trained in another method: `self.unet` is the component.
class UnetTuner:
    def __init__(self, model_id):
        self.pipe = StableDiffusionPipeline.from_pretrained(model_id)
        self.pipe.enable_model_cpu_offload()
        self.unet = self.pipe.unet.to("cuda")

    def fit(self, loader):
        # CHECK: [[@LINE+1]]:9: GL201 `self.pipe` has offload hooks from `enable_model_cpu_offload()` and is trained here (`self.unet.train()`): {{.*}}; `self.pipe.unet.to(...)` does not remove the hooks
        self.unet.train()
        optimizer = torch.optim.AdamW(self.unet.parameters())
        for batch in loader:
            self.unet(batch).sample.mean().backward()
            optimizer.step()
            optimizer.zero_grad()


# ---- silent: the hooks are removed before the move, or the moved module is not trained -------


def removed_all_then_moved(model_id, loader):
    pipe = StableDiffusionPipeline.from_pretrained(model_id)
    pipe.enable_model_cpu_offload()
    pipe.remove_all_hooks()
    unet = pipe.unet.to("cuda")
    unet.train()
    optimizer = torch.optim.AdamW(unet.parameters(), lr=1e-4)
    for batch in loader:
        unet(batch).sample.mean().backward()
        optimizer.step()
        optimizer.zero_grad()


def removed_from_module_then_moved(model_id):
    pipe = StableDiffusionPipeline.from_pretrained(model_id)
    pipe.enable_model_cpu_offload()
    remove_hook_from_module(pipe.unet, recurse=True)
    unet = pipe.unet.to("cuda")
    unet.train()
    return torch.optim.AdamW(unet.parameters(), lr=1e-4)


# The moved name is the component: removing its hooks removes the component's.
def moved_then_removed_from_submodules(model_id):
    pipe = StableDiffusionPipeline.from_pretrained(model_id)
    pipe.enable_model_cpu_offload()
    unet = pipe.unet.to("cuda")
    remove_hook_from_submodules(unet)
    unet.train()
    return torch.optim.AdamW(unet.parameters(), lr=1e-4)


class UnetTunerWithRemoval:
    def __init__(self, model_id):
        self.pipe = StableDiffusionPipeline.from_pretrained(model_id)
        self.pipe.enable_model_cpu_offload()
        self.pipe.remove_all_hooks()
        self.unet = self.pipe.unet.to("cuda")

    def fit(self):
        self.unet.train()
        return torch.optim.AdamW(self.unet.parameters())


# Moved for inference only.
def moved_for_inference(model_id, latents):
    pipe = StableDiffusionPipeline.from_pretrained(model_id)
    pipe.enable_model_cpu_offload()
    unet = pipe.unet.to("cuda")
    unet.eval()
    with torch.no_grad():
        return unet(latents).sample


# A moved tensor is not the module it came from.
def moved_batch(model, model_id, batch):
    pipe = StableDiffusionPipeline.from_pretrained(model_id)
    pipe.enable_model_cpu_offload()
    pixels = batch["pixels"].to("cuda")
    model.train()
    return model(pixels)
