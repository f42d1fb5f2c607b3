# RUN: not %gradlint check --select GL202 --no-respect-gitignore --output-format full %s | FileCheck %s --implicit-check-not=': GL'
# GL202 in full output: the finding is at the training action, the loading call is the related
# location, and the help says how to load for training.
from transformers import AutoModelForCausalLM


def finetune(name):
    model = AutoModelForCausalLM.from_pretrained(name, device_map="auto")
    model.train()
# CHECK: related.py:[[@LINE-1]]:5: GL202 `model` is loaded with an automatic device map and trained here (`model.train()`)
# CHECK: = note: {{.*}}related.py:[[@LINE-3]]:13: `model` is loaded here
# CHECK-NEXT: = help: for training, load onto one device (`device_map={"": 0}` or `.to("cuda")`), or check `hf_device_map` for cpu/disk entries first
