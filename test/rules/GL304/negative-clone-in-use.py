# RUN: %check-file %s | FileCheck %s --allow-empty --implicit-check-not=': GL'
# GL304 inference-tensor-in-autograd: `x.clone()` inside the assignment that uses the inference
# tensor, outside inference mode, makes a normal tensor, so autograd can save it.
import torch


def clone_in_call(backbone, head, x):
    with torch.inference_mode():
        feats = backbone(x)
    logits = head(feats.clone())
    loss = logits.sum()
    loss.backward()


def clone_in_expression(backbone, head, x):
    with torch.inference_mode():
        feats = backbone(x)
    loss = head(feats.clone() * 2).sum()
    loss.backward()
