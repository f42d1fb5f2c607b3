# RUN: not %check-file --select GL202,GL201 %s | FileCheck %s --implicit-check-not=': GL'
# A device map held in a local: when every binding of the name in the function is a plain
# `name = literal`, the map is judged by those literals (the worst of them), not as a value
# gradlint cannot read.
import torch
from transformers import AutoModelForCausalLM, BitsAndBytesConfig


# One device picked at run time: every value is a single device, so no hooks.
def pick_one_device(name):
    device_map = "cpu"
    if torch.cuda.is_available():
        device_map = "cuda"
    elif torch.xpu.is_available():
        device_map = "xpu"
    model = AutoModelForCausalLM.from_pretrained(name, device_map=device_map)
    model.train()


def one_device_dict(name):
    placement = {"": 0}
    model = AutoModelForCausalLM.from_pretrained(name, device_map=placement)
    model.train()


# Twin: one of the values is an automatic map.
def auto_on_one_branch(name, big):
    device_map = "cuda"
    if big:
        device_map = "auto"
    model = AutoModelForCausalLM.from_pretrained(name, device_map=device_map)
    # CHECK: [[@LINE+1]]:5: GL202 `model` is loaded with an automatic device map and trained here (`model.train()`)
    model.train()


# Twin: a map that sends some layers to disk offloads (GL201, an error).
def disk_on_one_branch(name, small_gpu):
    device_map = {"": 0}
    if small_gpu:
        device_map = {"model": 0, "lm_head": "disk"}
    model = AutoModelForCausalLM.from_pretrained(name, device_map=device_map)
    # CHECK: [[@LINE+1]]:5: GL201 `model` has offload hooks from `from_pretrained(device_map=...)` and is trained here (`model.train()`)
    model.train()


# A parameter is judged by its default: one device is silent, an automatic map is reported.
def map_from_a_parameter(name, device_map="cuda"):
    model = AutoModelForCausalLM.from_pretrained(name, device_map=device_map)
    model.train()


def map_from_a_parameter_auto(name, device_map="auto"):
    model = AutoModelForCausalLM.from_pretrained(name, device_map=device_map)
    # CHECK: [[@LINE+1]]:5: GL202 `model` is loaded with an automatic device map and trained here (`model.train()`)
    model.train()


def map_from_a_call(name, infer_auto_device_map):
    device_map = "cuda"
    if torch.cuda.device_count() > 1:
        device_map = infer_auto_device_map(name)
    model = AutoModelForCausalLM.from_pretrained(name, device_map=device_map)
    # CHECK: [[@LINE+1]]:5: GL202 `model` is loaded with an automatic device map and trained here (`model.train()`)
    model.train()


# Bound by a loop over values it cannot read: not reported.
def map_from_a_loop(name, choices):
    for device_map in choices:
        model = AutoModelForCausalLM.from_pretrained(name, device_map=device_map)
        model.train()


# `a if c else b`, written in the call or bound to the local: each branch is judged.
def conditional_devices(name, rank):
    device_map = "cuda" if torch.cuda.is_available() else "cpu"
    model = AutoModelForCausalLM.from_pretrained(name, device_map=device_map)
    model.train()
    other = AutoModelForCausalLM.from_pretrained(name, device_map={"": rank} if rank else None)
    other.train()


def conditional_auto(name, multi_gpu):
    model = AutoModelForCausalLM.from_pretrained(name, device_map="auto" if multi_gpu else None)
    # CHECK: [[@LINE+1]]:5: GL202 `model` is loaded with an automatic device map and trained here (`model.train()`)
    model.train()


# A bitsandbytes-quantized load with an automatic map: when layers would go to cpu or disk,
# transformers refuses to load ("Some modules are dispatched on the CPU or the disk") unless
# the config allows fp32 cpu offload. It fails loudly; it never trains offloaded.
def qlora_on_gpu_only(name, use_double_quant):
    bnb_config = BitsAndBytesConfig(load_in_4bit=True, bnb_4bit_use_double_quant=use_double_quant)
    model = AutoModelForCausalLM.from_pretrained(name, quantization_config=bnb_config, device_map="auto")
    model.train()
    int8 = AutoModelForCausalLM.from_pretrained(
        name, device_map="auto", quantization_config=BitsAndBytesConfig(load_in_8bit=True)
    )
    int8.train()
    legacy = AutoModelForCausalLM.from_pretrained(name, device_map="auto", load_in_8bit=True)
    legacy.train()


# Twins: cpu offload allowed, a config gradlint cannot see, or not quantized after all.
def qlora_with_cpu_offload(name, config):
    allowed = BitsAndBytesConfig(load_in_8bit=True, llm_int8_enable_fp32_cpu_offload=True)
    model = AutoModelForCausalLM.from_pretrained(name, quantization_config=allowed, device_map="auto")
    # CHECK: [[@LINE+1]]:5: GL202 `model` is loaded with an automatic device map and trained here (`model.train()`)
    model.train()
    other = AutoModelForCausalLM.from_pretrained(name, quantization_config=config, device_map="auto")
    # CHECK: [[@LINE+1]]:5: GL202 `other` is loaded with an automatic device map and trained here (`other.train()`)
    other.train()
    plain = AutoModelForCausalLM.from_pretrained(
        name, device_map="auto", quantization_config=BitsAndBytesConfig(load_in_8bit=False)
    )
    # CHECK: [[@LINE+1]]:5: GL202 `plain` is loaded with an automatic device map and trained here (`plain.train()`)
    plain.train()
