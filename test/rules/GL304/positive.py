# RUN: not %check-file %s | FileCheck %s --implicit-check-not=': GL'
# GL304 inference-tensor-in-autograd: a variable defined inside `with torch.inference_mode():` is
# used outside it in an assignment whose value flows into a backward() in the function. Autograd
# raises "Inference tensors cannot be saved for backward". Every finding is checked on the line
# right below its CHECK; anything not listed here fails the test.
import torch
import torch.nn.functional as F


# Frozen features from inference mode fed to a trainable head.
def train_head(backbone, head, x, y, opt):
    opt.zero_grad()
    with torch.inference_mode():
        feats = backbone(x)
    # CHECK: [[@LINE+1]]:5: GL304 `feats` is an inference tensor (made under `torch.inference_mode()`) and is used to compute `logits`, which is backpropagated: autograd raises "Inference tensors cannot be saved for backward"
    logits = head(feats)
    loss = F.cross_entropy(logits, y)
    loss.backward()
    opt.step()


# The loss itself computed from the inference tensor.
def direct(backbone, head, x):
    with torch.inference_mode():
        feats = backbone(x)
    # CHECK: [[@LINE+1]]:5: GL304 `feats` is an inference tensor (made under `torch.inference_mode()`) and is used to compute `loss`, which is backpropagated
    loss = head(feats).sum()
    loss.backward()


# Through a chain of assignments: the first assignment that uses the inference tensor.
def chain(backbone, head, x):
    with torch.inference_mode():
        feats = backbone(x)
    # CHECK: [[@LINE+1]]:5: GL304 `feats` is an inference tensor (made under `torch.inference_mode()`) and is used to compute `scaled`, which is backpropagated
    scaled = feats * 2
    logits = head(scaled)
    loss = logits.sum()
    loss.backward()


# A training loop over epochs and batches.
def train(backbone, head, loader, opt, epochs):
    for epoch in range(epochs):
        for x, y in loader:
            opt.zero_grad()
            with torch.inference_mode():
                feats = backbone(x)
            # CHECK: [[@LINE+1]]:13: GL304 `feats` is an inference tensor (made under `torch.inference_mode()`) and is used to compute `loss`, which is backpropagated
            loss = (head(feats) - y).pow(2).mean()
            loss.backward()
            opt.step()


# Distillation targets from a teacher under inference mode, with torch.cuda.amp.
def distill_amp(teacher, student, x, scaler, opt):
    with torch.inference_mode():
        target = teacher(x)
    # CHECK: [[@LINE+1]]:5: GL304 `target` is an inference tensor (made under `torch.inference_mode()`) and is used to compute `loss`, which is backpropagated
    loss = (student(x) - target).abs().mean()
    scaler.scale(loss).backward()
    scaler.step(opt)
    scaler.update()


# With Accelerate's `accelerator.backward(loss)`.
def distill_accelerate(teacher, student, x, accelerator):
    with torch.inference_mode():
        target = teacher(x)
    # CHECK: [[@LINE+1]]:5: GL304 `target` is an inference tensor (made under `torch.inference_mode()`) and is used to compute `loss`, which is backpropagated
    loss = (student(x) - target).abs().mean()
    accelerator.backward(loss)


# With `torch.autograd.backward(loss)`.
def autograd_backward(backbone, head, x):
    with torch.inference_mode():
        feats = backbone(x)
    # CHECK: [[@LINE+1]]:5: GL304 `feats` is an inference tensor (made under `torch.inference_mode()`) and is used to compute `loss`, which is backpropagated
    loss = head(feats).sum()
    torch.autograd.backward(loss)


# `.detach()` of an inference tensor is still an inference tensor (a view of the same data).
def detached(backbone, head, x):
    with torch.inference_mode():
        feats = backbone(x)
    feats = feats.detach()
    # CHECK: [[@LINE+1]]:5: GL304 `feats` is an inference tensor (made under `torch.inference_mode()`) and is used to compute `loss`, which is backpropagated
    loss = head(feats).sum()
    loss.backward()


def detached_into(backbone, head, x):
    with torch.inference_mode():
        feats = backbone(x)
    frozen = feats.detach().view(-1)
    # CHECK: [[@LINE+1]]:5: GL304 `frozen` is an inference tensor (made under `torch.inference_mode()`) and is used to compute `loss`
    loss = head(frozen).sum()
    loss.backward()
