# RUN: not %check-file --select GL201 %s | FileCheck %s --implicit-check-not=': GL'
# Module code is one flow whichever rules are selected: with GL201 alone, the statements that
# use what an offloading statement binds are parsed too (its markers name only the loading),
# through another name as well, and so are the bindings of the map it reads.
from transformers import AutoModelForCausalLM

disk_map = {"model": 0, "lm_head": "disk"}
heavy = AutoModelForCausalLM.from_pretrained("heavy", device_map=disk_map)
student = heavy
# CHECK: [[@LINE+1]]:1: GL201 `heavy` has offload hooks from `from_pretrained(device_map=...)` and is trained here (`student.train()`)
student.train()

# Nothing offloads these: loaded on one GPU, and a model no offloading statement reaches.
gpu_map = "cuda:0"
light = AutoModelForCausalLM.from_pretrained("light", device_map=gpu_map)
light.train()
other = AutoModelForCausalLM.from_pretrained("other")
other.train()
