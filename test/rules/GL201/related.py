# RUN: not %gradlint check --no-respect-gitignore --output-format full %s | FileCheck %s --implicit-check-not=': GL'
# GL201 in full output: the finding is at the training action, the offload call is a related
# location, and a `.to(...)` after the offload is one more (it does not take the hooks off).
from diffusers import DiffusionPipeline


def finetune(path):
    pipe = DiffusionPipeline.from_pretrained(path)
    pipe.enable_model_cpu_offload()
    pipe.unet.train()
# CHECK: related.py:[[@LINE-1]]:5: GL201 `pipe` has offload hooks from `enable_model_cpu_offload()` and is trained here (`pipe.unet.train()`)
# CHECK-NEXT: |
# CHECK-NEXT: [[@LINE-3]] |     pipe.unet.train()
# CHECK-NEXT: |     ^^^^^^^^^^^^^^^^^ GL201
# CHECK-NEXT: |
# CHECK-NEXT: = note: {{.*}}related.py:[[@LINE-7]]:5: `pipe` is offloaded here
# CHECK-NEXT: = help: offload only for inference; to train, remove the hooks first (`pipe.remove_all_hooks()` in diffusers, `remove_hook_from_module(model, recurse=True)` in accelerate), then move the model with `.to(device)`


def finetune_after_move(path):
    pipe = DiffusionPipeline.from_pretrained(path)
    pipe.enable_model_cpu_offload()
    pipe.to("cuda")
    pipe.unet.train()
# CHECK: related.py:[[@LINE-1]]:5: GL201 `pipe` has offload hooks from `enable_model_cpu_offload()` and is trained here (`pipe.unet.train()`): {{.*}}; `pipe.to(...)` does not remove the hooks
# CHECK: = note: {{.*}}related.py:[[@LINE-4]]:5: `pipe` is offloaded here
# CHECK-NEXT: = note: {{.*}}related.py:[[@LINE-4]]:5: moving it does not take the hooks off
# CHECK-NEXT: = help: offload only for inference
