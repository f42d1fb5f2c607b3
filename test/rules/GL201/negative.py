# RUN: %check-file %s | FileCheck %s --allow-empty --implicit-check-not=': GL'
# GL201 train-after-offload must stay silent on every idiom below: the offloaded object is only
# used for inference, its hooks are taken off before training, or what is trained is another
# object.
import torch
from accelerate import cpu_offload, dispatch_model, load_checkpoint_and_dispatch
from accelerate.hooks import remove_hook_from_module
from diffusers import DiffusionPipeline
from transformers import AutoModelForCausalLM


# The usual end of a fine-tuning script: train, then offload the final pipeline and generate.
def train_then_offload_for_inference(path, loader, prompt):
    pipe = DiffusionPipeline.from_pretrained(path)
    pipe.unet.train()
    opt = torch.optim.AdamW(pipe.unet.parameters(), lr=1e-4)
    for batch in loader:
        loss = pipe.unet(batch).mean()
        loss.backward()
        opt.step()
        opt.zero_grad()
    pipe.unet.eval()
    pipe.enable_model_cpu_offload()
    return pipe(prompt).images


# Inference only: offload, eval, generate.
def generate(path, prompt):
    pipe = DiffusionPipeline.from_pretrained(path)
    pipe.enable_sequential_cpu_offload()
    pipe.unet.eval()
    with torch.no_grad():
        return pipe(prompt).images


# `.train(False)` and `.requires_grad_(False)` freeze; they do not train.
def freeze_offloaded(pipe):
    pipe.enable_model_cpu_offload()
    pipe.unet.train(False)
    pipe.unet.requires_grad_(False)
    for p in pipe.text_encoder.parameters():
        p.requires_grad = False


# One object is offloaded, another one is trained.
def offload_one_train_another(pipe, model, x):
    pipe.enable_model_cpu_offload()
    model.train()
    opt = torch.optim.AdamW(model.parameters())
    loss = model(x).sum()
    loss.backward()
    opt.step()


# The hooks are taken off before training: diffusers...
def remove_all_hooks_first(pipe):
    pipe.enable_model_cpu_offload()
    pipe.remove_all_hooks()
    pipe.to("cuda")
    pipe.unet.train()


# `reset_device_map()` undoes a device_map load (after `enable_model_cpu_offload()` it does
# nothing: see resets.py).
def reset_device_map_first(path):
    pipe = DiffusionPipeline.from_pretrained(path, device_map={"unet": "cpu", "vae": 0})
    pipe.reset_device_map()
    pipe.unet.train()


# ...and accelerate.
def remove_hook_from_module_first(model):
    cpu_offload(model)
    remove_hook_from_module(model, recurse=True)
    model.to("cuda")
    model.train()


# The hooks of a component are removed (through an alias) before that component is trained.
def alias_reset(model):
    encoder = model.encoder
    cpu_offload(model.encoder)
    remove_hook_from_module(encoder, recurse=True)
    model.encoder.train()


# The name is rebound to a new object after the offload.
def rebound_to_new_pipeline(pipe, load_other):
    pipe.enable_model_cpu_offload()
    pipe = load_other()
    pipe.unet.train()


def rebound_from_pretrained(path):
    pipe = DiffusionPipeline.from_pretrained(path)
    pipe.enable_model_cpu_offload()
    pipe = DiffusionPipeline.from_pretrained(path)
    pipe.unet.train()


# Device maps that only name devices do not offload.
def dispatch_to_devices(model):
    dispatch_model(model, device_map={"encoder": 0, "decoder": "cuda:1", "head": "cuda"})
    model.train()


def load_and_dispatch_to_one_gpu(model, checkpoint):
    load_checkpoint_and_dispatch(model, checkpoint, device_map={"": 0})
    model.train()


def from_pretrained_on_device(name, accelerator):
    model = AutoModelForCausalLM.from_pretrained(name, device_map={"": accelerator.process_index})
    model.train()
    other = AutoModelForCausalLM.from_pretrained(name, device_map="cuda:0")
    other.train()


# transformers fine-tuning with device_map="auto" may offload: that is GL202 (preview, off by
# default), never GL201.
def finetune_with_auto_map(name, loader):
    model = AutoModelForCausalLM.from_pretrained(name, device_map="auto")
    model.train()
    opt = torch.optim.AdamW(model.parameters(), lr=2e-5)
    for batch in loader:
        loss = model(**batch).loss
        loss.backward()
        opt.step()
        opt.zero_grad()


def dispatch_with_variable_map(model, device_map):
    dispatch_model(model, device_map=device_map)
    model.train()


# Not accelerate or diffusers: a project function that only shares the name.
def cpu_offload_local(model):
    return model


def local_helper(model):
    cpu_offload_local(model)
    model.train()


# A class that offloads in __init__ and only generates in its other methods.
class Generator:
    def __init__(self, path):
        self.pipe = DiffusionPipeline.from_pretrained(path)
        self.pipe.enable_model_cpu_offload()

    def generate(self, prompt):
        self.pipe.unet.eval()
        return self.pipe(prompt).images


# A class whose training method loads a fresh pipeline first.
class Reloader:
    def __init__(self, path):
        self.pipe = DiffusionPipeline.from_pretrained(path)
        self.pipe.enable_model_cpu_offload()

    def fit(self, path):
        self.pipe = DiffusionPipeline.from_pretrained(path)
        self.pipe.unet.train()


# A class that removes the hooks at the start of training.
class Unhooks:
    def __init__(self, pipe):
        self.pipe = pipe
        self.pipe.enable_model_cpu_offload()

    def fit(self):
        self.pipe.remove_all_hooks()
        self.pipe.to("cuda")
        self.pipe.unet.train()


# Mentions in text and comments are not calls: pipe.enable_model_cpu_offload(); pipe.unet.train()
def mentions_only(pipe):
    """Call pipe.enable_model_cpu_offload() for inference; never before pipe.unet.train()."""
    pipe.unet.train()
    return "pipe.enable_model_cpu_offload()"
