# RUN: %check-file --select GL202 %s | FileCheck %s --allow-empty --implicit-check-not=': GL'
# Literal device maps that are not maps: `None` (no map: transformers loads the usual way) and a
# single device index or `torch.device` name place the whole model on that device.
from transformers import AutoModelForCausalLM


def no_map(name):
    model = AutoModelForCausalLM.from_pretrained(name, device_map=None)
    model.train()


def device_index(name):
    model = AutoModelForCausalLM.from_pretrained(name, device_map=0)
    model.train()
