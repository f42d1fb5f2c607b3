# RUN: not %check-file %s | FileCheck %s --implicit-check-not=': GL'
# GL302 with an explicit `mode` argument: `torch.inference_mode(True)` (or `mode=True`) enables
# inference mode, so grad is disabled, like `torch.inference_mode()`; `torch.inference_mode(False)`
# leaves grad as it is, and must stay silent.
import torch


def mode_true(model, x):
    with torch.inference_mode(True):
        loss = model(x).sum()
    # CHECK: [[@LINE+1]]:5: GL302 `loss` was computed with grad disabled, so it has no autograd graph
    loss.backward()


def mode_keyword_true(model, x):
    with torch.inference_mode(mode=True):
        loss = model(x).sum()
    # CHECK: [[@LINE+1]]:5: GL302 `loss` was computed with grad disabled, so it has no autograd graph
    loss.backward()


def mode_false(model, x):
    with torch.inference_mode(False):
        loss = model(x).sum()
    loss.backward()
