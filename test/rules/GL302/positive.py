# RUN: not %check-file %s | FileCheck %s --implicit-check-not=': GL'
# GL302 backward-through-no-grad: `.backward()` on a variable every reaching definition of which
# was computed with grad disabled. The value has no autograd graph, and backward raises
# "element 0 of tensors does not require grad and does not have a grad_fn". Every finding is
# checked on the line right below its CHECK; anything not listed here fails the test.
import torch
import torch.nn.functional as F


# The loss computed inside `with torch.no_grad():`.
def no_grad_block(model, x, y, opt):
    opt.zero_grad()
    with torch.no_grad():
        loss = F.mse_loss(model(x), y)
    # CHECK: [[@LINE+1]]:5: GL302 `loss` was computed with grad disabled, so it has no autograd graph: `backward()` raises "element 0 of tensors does not require grad and does not have a grad_fn"
    loss.backward()
    opt.step()


# `with torch.inference_mode():`.
def inference_mode_block(model, x):
    with torch.inference_mode():
        loss = model(x).mean()
    # CHECK: [[@LINE+1]]:5: GL302 `loss` was computed with grad disabled, so it has no autograd graph
    loss.backward()


# `with torch.set_grad_enabled(False):`.
def set_grad_enabled_block(model, x):
    with torch.set_grad_enabled(False):
        loss = model(x).sum()
    # CHECK: [[@LINE+1]]:5: GL302 `loss` was computed with grad disabled, so it has no autograd graph
    loss.backward()


# The whole function decorated with `@torch.no_grad()`.
@torch.no_grad()
def decorated(model, x):
    loss = model(x).sum()
    # CHECK: [[@LINE+1]]:5: GL302 `loss` was computed with grad disabled, so it has no autograd graph
    loss.backward()


# A `torch.set_grad_enabled(False)` toggle in force on every path to the definition.
def toggled_off(model, x):
    prev = torch.is_grad_enabled()
    torch.set_grad_enabled(False)
    try:
        loss = model(x).sum()
        # CHECK: [[@LINE+1]]:9: GL302 `loss` was computed with grad disabled, so it has no autograd graph
        loss.backward()
    finally:
        torch.set_grad_enabled(prev)


# Inside a training loop over epochs and batches.
def train(model, loader, opt, epochs):
    for epoch in range(epochs):
        for x in loader:
            opt.zero_grad()
            with torch.no_grad():
                out = model(x)
                loss = out.mean()
            # CHECK: [[@LINE+1]]:13: GL302 `loss` was computed with grad disabled, so it has no autograd graph
            loss.backward()
            opt.step()


# Every reaching definition is inside a region: one on each branch.
def both_branches(model, x, reduce_mean):
    if reduce_mean:
        with torch.no_grad():
            loss = model(x).mean()
    else:
        with torch.no_grad():
            loss = model(x).sum()
    # CHECK: [[@LINE+1]]:5: GL302 `loss` was computed with grad disabled, so it has no autograd graph
    loss.backward()


# The backward inside the region itself.
def backward_inside(model, x):
    with torch.no_grad():
        loss = model(x).sum()
        # CHECK: [[@LINE+1]]:9: GL302 `loss` was computed with grad disabled, so it has no autograd graph
        loss.backward()


# The other backward spellings: `loss.mean().backward()`, torch.cuda.amp's
# `scaler.scale(loss).backward()`, `accelerator.backward(loss)` and `torch.autograd.backward`.
def mean_backward(model, x):
    with torch.no_grad():
        loss = model(x)
    # CHECK: [[@LINE+1]]:5: GL302 `loss` was computed with grad disabled, so it has no autograd graph
    loss.mean().backward()


def amp(model, x, scaler, opt):
    with torch.no_grad():
        loss = model(x).sum()
    # CHECK: [[@LINE+1]]:5: GL302 `loss` was computed with grad disabled, so it has no autograd graph
    scaler.scale(loss).backward()
    scaler.step(opt)


def accelerate(model, x, accelerator):
    with torch.no_grad():
        loss = model(x).sum()
    # CHECK: [[@LINE+1]]:5: GL302 `loss` was computed with grad disabled, so it has no autograd graph
    accelerator.backward(loss)


def autograd_backward(model, x):
    with torch.no_grad():
        loss = model(x).sum()
    # CHECK: [[@LINE+1]]:5: GL302 `loss` was computed with grad disabled, so it has no autograd graph
    torch.autograd.backward(loss)


# An attribute of self.
class Trainer:
    def fit(self, x):
        with torch.no_grad():
            self.loss = self.model(x).sum()
        # CHECK: [[@LINE+1]]:9: GL302 `self.loss` was computed with grad disabled, so it has no autograd graph
        self.loss.backward()


# The twin of guidance under a decorator: grad is back off by the time the loss is computed.
@torch.no_grad()
def guidance_too_late(classifier, x):
    torch.set_grad_enabled(True)
    torch.set_grad_enabled(False)
    loss = classifier(x).sum()
    # CHECK: [[@LINE+1]]:5: GL302 `loss` was computed with grad disabled
    loss.backward()
