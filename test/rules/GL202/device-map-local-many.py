# RUN: not %check-file --select GL202,GL201 %s | FileCheck %s --implicit-check-not=': GL'
# Many loading calls in one unit, each reading its map or config from a local: each call is
# judged by the bindings of its own name, whichever name an earlier call asked about.
from transformers import AutoModelForCausalLM, BitsAndBytesConfig


def several_locals(name, device_map_arg, big):
    device_map = "cuda"
    quantized = BitsAndBytesConfig(load_in_4bit=True)
    if big:
        device_map = "balanced"
    first = AutoModelForCausalLM.from_pretrained(name, device_map=device_map)
    # CHECK: [[@LINE+1]]:5: GL202 `first` is loaded with an automatic device map and trained here (`first.train()`)
    first.train()
    # The same map, quantized without cpu offload: it fails to load rather than offload.
    second = AutoModelForCausalLM.from_pretrained(name, device_map=device_map, quantization_config=quantized)
    second.train()
    # A parameter without a default: it cannot be told, so it is not reported, whatever the
    # other locals are.
    third = AutoModelForCausalLM.from_pretrained(name, device_map=device_map_arg)
    third.train()
    on_gpu = "cuda:0"
    fourth = AutoModelForCausalLM.from_pretrained(name, device_map=on_gpu)
    fourth.train()


# A binding that is not plain anywhere in the unit (here `+=`, after the call) makes the map
# unknown for every call that reads it, and an unknown map is not reported.
def rebound_after(name):
    device_map = "cuda"
    model = AutoModelForCausalLM.from_pretrained(name, device_map=device_map)
    model.train()
    other = AutoModelForCausalLM.from_pretrained(name, device_map=device_map)
    other.train()
    device_map += ":0"
