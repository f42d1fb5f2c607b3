# RUN: %check-file %s | FileCheck %s --allow-empty --implicit-check-not=': GL'
# GL304 inference-tensor-in-autograd must stay silent below: no inference tensor is used outside
# inference mode in a computation that reaches backward().
import torch


# `feats = feats.clone()` outside inference mode makes a normal tensor.
def cloned(backbone, head, x):
    with torch.inference_mode():
        feats = backbone(x)
    feats = feats.clone()
    loss = head(feats).sum()
    loss.backward()


# A clone into another variable, and `torch.clone`.
def cloned_into(backbone, head, x):
    with torch.inference_mode():
        feats = backbone(x)
    copy = feats.clone()
    loss = head(copy).sum()
    loss.backward()


def torch_clone(backbone, head, x):
    with torch.inference_mode():
        feats = backbone(x)
    feats = torch.clone(feats)
    loss = head(feats).sum()
    loss.backward()


# `torch.no_grad()` makes normal tensors without a graph, not inference tensors.
def no_grad(backbone, head, x):
    with torch.no_grad():
        feats = backbone(x)
    loss = head(feats).sum()
    loss.backward()


# Used in an assignment that does not reach backward().
def logged_only(backbone, head, x, log):
    with torch.inference_mode():
        feats = backbone(x)
    stats = feats.mean()
    log(stats)
    loss = head(x).sum()
    loss.backward()


# Used inside another inference-mode or no_grad block.
def used_in_other_blocks(backbone, head, x):
    with torch.inference_mode():
        feats = backbone(x)
    with torch.inference_mode():
        score = head(feats)
    with torch.no_grad():
        margin = head(feats) - score
    print(margin)
    loss = head(x).sum()
    loss.backward()


# No backward in the function.
def predict(backbone, head, x):
    with torch.inference_mode():
        feats = backbone(x)
    return head(feats)


# Redefined outside inference mode before the use.
def redefined(backbone, head, x):
    with torch.inference_mode():
        feats = backbone(x)
    print(feats.shape)
    feats = backbone(x)
    loss = head(feats).sum()
    loss.backward()


# Detached, then cloned outside inference mode: a normal tensor.
def detached_then_cloned(backbone, head, x):
    with torch.inference_mode():
        feats = backbone(x)
    feats = feats.detach().clone()
    loss = head(feats).sum()
    loss.backward()
