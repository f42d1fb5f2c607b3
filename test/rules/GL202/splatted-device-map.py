# RUN: not %check-file --select GL202 %s | FileCheck %s --implicit-check-not=': GL'
# The map can reach the loader through `**kwargs`: a dict built in the function (a literal or
# `dict(...)`) whose "device_map" entry is judged like the keyword: a parameter defaulting to
# "auto", a local holding "auto". Entries naming one device stay silent.
import torch
from peft import LoraConfig, get_peft_model
from transformers import AutoModelForCausalLM, Trainer


def train(base_model, args, data, device_map: str = "auto", world_size: int = 1):
    if world_size > 1:
        device_map = {"": torch.cuda.current_device()}
    model_kwargs = {"dtype": torch.bfloat16, "device_map": device_map}
    model = AutoModelForCausalLM.from_pretrained(base_model, **model_kwargs)
    model = get_peft_model(model, LoraConfig(r=8))
    trainer = Trainer(model=model, args=args, train_dataset=data)
    # CHECK: [[@LINE+1]]:5: GL202 `model` is loaded with an automatic device map and trained here (`trainer.train()` (transformers `Trainer`))
    trainer.train()


def train_single_device(base_model, args, data, device_map: str = "cuda:0"):
    model_kwargs = {"dtype": torch.bfloat16, "device_map": device_map}
    model = AutoModelForCausalLM.from_pretrained(base_model, **model_kwargs)
    Trainer(model=model, args=args, train_dataset=data).train()


def dict_call(base_model):
    placement = "auto"
    kwargs = dict(device_map=placement, torch_dtype=torch.float16)
    model = AutoModelForCausalLM.from_pretrained(base_model, **kwargs)
    # CHECK: [[@LINE+1]]:5: GL202 `model` is loaded with an automatic device map and trained here (`model.train()`)
    model.train()


def dict_call_one_device(base_model):
    kwargs = dict(device_map={"": 0}, torch_dtype=torch.float16)
    model = AutoModelForCausalLM.from_pretrained(base_model, **kwargs)
    model.train()


def inline_literal(base_model):
    device_map = "sequential"
    model = AutoModelForCausalLM.from_pretrained(base_model, **{"device_map": device_map})
    # CHECK: [[@LINE+1]]:5: GL202 `model` is loaded with an automatic device map and trained here (`model.train()`)
    model.train()


def no_map_in_kwargs(base_model):
    kwargs = {"torch_dtype": torch.float16}
    model = AutoModelForCausalLM.from_pretrained(base_model, **kwargs)
    model.train()
