# RUN: not %check-file %s | FileCheck %s --implicit-check-not=': GL'
# Grad mode disabled by a statement and never restored: the incident gradlint was built for.
import torch


def load_pipeline(path):
    # CHECK: [[@LINE+1]]:5: GL101 `torch.set_grad_enabled(False)` disables grad mode and `load_pipeline` returns with it still disabled; every later `backward()` in this thread computes no gradients
    torch.set_grad_enabled(False)
    return torch.load(path)
