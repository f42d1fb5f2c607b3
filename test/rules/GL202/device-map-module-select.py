# RUN: not %check-file --select GL202 %s | FileCheck %s --implicit-check-not=': GL'
# With GL202 alone, a module-level device map is still judged by its plain bindings (the
# statements binding it are parsed with the loading call that reads it), and the training two
# statements below the loading is still seen.
from transformers import AutoModelForCausalLM

auto_map = "auto"
model = AutoModelForCausalLM.from_pretrained("base", device_map=auto_map)
# CHECK: [[@LINE+1]]:1: GL202 `model` is loaded with an automatic device map and trained here (`model.train()`)
model.train()

pinned = "cuda:0"
on_gpu = AutoModelForCausalLM.from_pretrained("base", device_map=pinned)
on_gpu.train()
