# RUN: %check-file %s | FileCheck %s --allow-empty --implicit-check-not=': GL'
# A device map that puts the whole model on one device is a plain move: accelerate's
# dispatch_model() then calls `model.to(device)` and attaches no hooks. `device_map="cpu"` is
# training on the CPU, not offloading.
from transformers import AutoModelForCausalLM


def train_on_cpu(name):
    model = AutoModelForCausalLM.from_pretrained(name, device_map="cpu")
    model.train()
