# RUN: %check-file --select GL202 %s | FileCheck %s --allow-empty --implicit-check-not=': GL'
# GL202 device-map-may-offload (selected here) must stay silent on every idiom below: the map
# names devices only, the model is only used for inference, or it is not the model that is
# trained.
import torch
from accelerate import cpu_offload, dispatch_model
from transformers import AutoModelForCausalLM


# Maps that name devices only.
def one_gpu_per_process(name, accelerator):
    model = AutoModelForCausalLM.from_pretrained(name, device_map={"": accelerator.process_index})
    model.train()


def fixed_devices(name):
    model = AutoModelForCausalLM.from_pretrained(name, device_map={"": 0})
    model.train()
    other = AutoModelForCausalLM.from_pretrained(name, device_map="cuda:0")
    other.train()
    third = AutoModelForCausalLM.from_pretrained(name, device_map="cuda")
    third.train()


def dispatch_to_devices(model):
    dispatch_model(model, device_map={"encoder": 0, "decoder": 1})
    model.train()


# No device map at all.
def no_device_map(name):
    model = AutoModelForCausalLM.from_pretrained(name)
    model.to("cuda")
    model.train()


# Inference only.
def generate(name, input_ids):
    model = AutoModelForCausalLM.from_pretrained(name, device_map="auto")
    model.eval()
    with torch.no_grad():
        return model.generate(input_ids)


# `.train(False)` is eval.
def freeze(name):
    model = AutoModelForCausalLM.from_pretrained(name, device_map="auto")
    model.train(False)
    model.requires_grad_(False)


# The auto-mapped model is a frozen teacher; the student is trained.
def distill(name, student, batch):
    teacher = AutoModelForCausalLM.from_pretrained(name, device_map="auto")
    teacher.eval()
    student.train()
    opt = torch.optim.AdamW(student.parameters())
    loss = student(**batch).loss
    loss.backward()
    opt.step()


# Rebound to a model loaded onto one device.
def reloaded(name):
    model = AutoModelForCausalLM.from_pretrained(name, device_map="auto")
    model = AutoModelForCausalLM.from_pretrained(name, device_map={"": 0})
    model.train()


# A definite offload (a "cpu" entry, offload_folder=, cpu_offload()) is GL201's, not GL202's.
def definite_offload(name, other):
    model = AutoModelForCausalLM.from_pretrained(name, device_map="auto", offload_folder="off")
    model.train()
    cpu_offload(other)
    other.train()
