# RUN: not %check-file %s | FileCheck %s --implicit-check-not=': GL'
# GL305 zero-grad-between-backward-and-step: backward() -> gradient reset -> step() with no
# backward between the reset and the step, so the step applies zeroed (or None) gradients. The
# finding is at the reset; every finding is checked on the line right below its CHECK, and
# anything not listed here fails the test.
import torch
from torch.cuda.amp import GradScaler


# The reset moved down by one line too many.
def misplaced(model, loader, opt):
    for x, y in loader:
        loss = (model(x) - y).pow(2).mean()
        loss.backward()
        # CHECK: [[@LINE+1]]:9: GL305 `opt.zero_grad()` runs after `backward()` and before `step()`: the step applies zeroed gradients, so the parameters do not learn from this batch
        opt.zero_grad()
        opt.step()


# Nested loops (epochs x batches), `model.zero_grad()`.
def epochs_and_batches(model, loader, optimizer, epochs):
    for epoch in range(epochs):
        for x in loader:
            loss = model(x)
            loss.mean().backward()
            # CHECK: [[@LINE+1]]:13: GL305 `model.zero_grad()` runs after `backward()` and before `step()`
            model.zero_grad()
            optimizer.step()


# An optimizer stored on self, reset through a helper method in `fit`.
class Trainer:
    def __init__(self, model):
        self.model = model
        self.optimizer = torch.optim.SGD(model.parameters(), lr=0.1)

    def _reset(self):
        self.optimizer.zero_grad()

    def fit(self, loader):
        for x in loader:
            loss = self.model(x)
            loss.backward()
            # CHECK: [[@LINE+1]]:13: GL305 `self._reset()` runs after `backward()` and before `step()`
            self._reset()
            self.optimizer.step()


# Gradient accumulation with the reset and the step in the wrong order.
def accumulate(model, loader, opt, k):
    for i, x in enumerate(loader):
        loss = model(x) / k
        loss.backward()
        if i % k == 0:
            # CHECK: [[@LINE+1]]:13: GL305 `opt.zero_grad()` runs after `backward()` and before `step()`
            opt.zero_grad()
            opt.step()


# A reset on one branch is enough: on that path the step gets nothing.
def reset_on_one_branch(model, x, opt, restart):
    loss = model(x)
    loss.backward()
    if restart:
        # CHECK: [[@LINE+1]]:9: GL305 `opt.zero_grad()` runs after `backward()` and before `step()`
        opt.zero_grad()
    opt.step()


# torch.cuda.amp: `scaler.scale(loss).backward()` and `scaler.step(opt)`.
def train_amp(model, loader, opt):
    scaler = GradScaler()
    for x in loader:
        with torch.autocast("cuda"):
            loss = model(x)
        scaler.scale(loss).backward()
        # CHECK: [[@LINE+1]]:9: GL305 `opt.zero_grad()` runs after `backward()` and before `step()`
        opt.zero_grad(set_to_none=True)
        scaler.step(opt)
        scaler.update()


# Hugging Face Accelerate: `accelerator.backward(loss)`.
def train_accelerate(model, loader, optimizer, accelerator):
    for x in loader:
        loss = model(x)
        accelerator.backward(loss)
        # CHECK: [[@LINE+1]]:9: GL305 `optimizer.zero_grad()` runs after `backward()` and before `step()`
        optimizer.zero_grad()
        optimizer.step()


# `torch.autograd.backward(loss)`.
def autograd_backward(model, x, opt):
    loss = model(x)
    torch.autograd.backward(loss)
    # CHECK: [[@LINE+1]]:5: GL305 `opt.zero_grad()` runs after `backward()` and before `step()`
    opt.zero_grad()
    opt.step()


# Resets by hand: `p.grad = None` and `p.grad.zero_()`.
def set_to_none(model, x, opt):
    loss = model(x)
    loss.backward()
    # CHECK: [[@LINE+1]]:5: GL305 `model.weight.grad = None` runs after `backward()` and before `step()`
    model.weight.grad = None
    opt.step()


def zero_in_place(model, x, opt):
    loss = model(x)
    loss.backward()
    # CHECK: [[@LINE+1]]:5: GL305 `model.weight.grad.zero_()` runs after `backward()` and before `step()`
    model.weight.grad.zero_()
    opt.step()


# Several optimizers: each reset between the backward and the steps is reported.
def several(model, x, opt_g, opt_d):
    loss = model(x)
    loss.backward()
    # CHECK: [[@LINE+1]]:5: GL305 `opt_g.zero_grad()` runs after `backward()` and before `step()`
    opt_g.zero_grad()
    # CHECK: [[@LINE+1]]:5: GL305 `opt_d.zero_grad()` runs after `backward()` and before `step()`
    opt_d.zero_grad()
    opt_g.step()
    opt_d.step()
