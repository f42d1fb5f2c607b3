# RUN: not %check-file %s | FileCheck %s --implicit-check-not=': GL'
# GL304 with an explicit `mode` argument: `torch.inference_mode(True)` (or `mode=True`) makes
# inference tensors, like `torch.inference_mode()`; `torch.inference_mode(False)` does not, and
# must stay silent.
import torch


def mode_true(backbone, head, x):
    with torch.inference_mode(True):
        feats = backbone(x)
    # CHECK: [[@LINE+1]]:5: GL304 `feats` is an inference tensor (made under `torch.inference_mode()`) and is used to compute `loss`, which is backpropagated
    loss = head(feats).sum()
    loss.backward()


def mode_keyword_true(backbone, head, x):
    with torch.inference_mode(mode=True):
        feats = backbone(x)
    # CHECK: [[@LINE+1]]:5: GL304 `feats` is an inference tensor (made under `torch.inference_mode()`) and is used to compute `loss`, which is backpropagated
    loss = head(feats).sum()
    loss.backward()


def mode_false(backbone, head, x):
    with torch.inference_mode(False):
        feats = backbone(x)
    loss = head(feats).sum()
    loss.backward()
