# RUN: %check-file %s | FileCheck %s --allow-empty --implicit-check-not=': GL'
# GL202 is a preview rule: without `--select GL202` (or `--select GL2`) it does not run, and
# GL201 never reports a device map that only may offload.
# RUN: not %check-file --select GL2 %s | FileCheck %s --check-prefix=GL2 --implicit-check-not=': GL'
# RUN: %check-file --select ALL %s | FileCheck %s --allow-empty --implicit-check-not=': GL'
from transformers import AutoModelForCausalLM


def finetune(name):
    model = AutoModelForCausalLM.from_pretrained(name, device_map="auto")
    # GL2: [[@LINE+1]]:5: GL202 `model` is loaded with an automatic device map and trained here (`model.train()`)
    model.train()
