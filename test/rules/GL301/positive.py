# RUN: not %check-file %s | FileCheck %s --implicit-check-not=': GL'
# GL301 missing-zero-grad: a path backward() -> optimizer step() -> backward() with no gradient
# reset between the two backward calls. The second backward adds to gradients the optimizer has
# already applied. The finding is at the step; every finding is checked on the line right below
# its CHECK, and anything not listed here fails the test.
import torch
import torch.optim as optim
from torch.cuda.amp import GradScaler


# The plain loop with no zero_grad() at all.
def train(model, loader, opt):
    for x, y in loader:
        loss = (model(x) - y).pow(2).mean()
        loss.backward()
        # CHECK: [[@LINE+1]]:9: GL301 `opt.step()` applies the gradients, but nothing resets them before the next `backward()`: each step adds its gradients to ones already applied, so updates grow step after step
        opt.step()


# Nested loops (epochs x batches), `loss.mean().backward()`.
def train_epochs(model, loader, optimizer, epochs):
    for epoch in range(epochs):
        for x in loader:
            loss = model(x)
            loss.mean().backward()
            # CHECK: [[@LINE+1]]:13: GL301 `optimizer.step()` applies the gradients, but nothing resets them
            optimizer.step()


# zero_grad() once per epoch is not enough: the batches of an epoch accumulate.
def zero_grad_per_epoch(model, loader, opt1, epochs):
    for epoch in range(epochs):
        opt1.zero_grad()
        for x in loader:
            loss = model(x)
            loss.backward()
            # CHECK: [[@LINE+1]]:13: GL301 `opt1.step()` applies the gradients, but nothing resets them
            opt1.step()


# zero_grad() before the loop runs once, not once per step.
def zero_grad_before_loop(model, loader, opt):
    opt.zero_grad()
    for x in loader:
        loss = model(x)
        loss.backward()
        # CHECK: [[@LINE+1]]:9: GL301 `opt.step()` applies the gradients, but nothing resets them
        opt.step()


# A reset on one branch only leaves a path that accumulates.
def reset_on_one_branch(model, loader, opt):
    for x in loader:
        if x is None:
            opt.zero_grad()
        loss = model(x)
        loss.backward()
        # CHECK: [[@LINE+1]]:9: GL301 `opt.step()` applies the gradients, but nothing resets them
        opt.step()


# No loop: two training steps written one after the other. The first step is stale.
def two_steps(model, first, second, opt):
    opt.zero_grad()
    loss = model(first)
    loss.backward()
    # CHECK: [[@LINE+1]]:5: GL301 `opt.step()` applies the gradients, but nothing resets them
    opt.step()
    loss = model(second)
    loss.backward()
    opt.step()


# A `while` loop.
def train_until(model, batches, opt, threshold):
    while True:
        loss = model(next(batches))
        loss.backward()
        # CHECK: [[@LINE+1]]:9: GL301 `opt.step()` applies the gradients, but nothing resets them
        opt.step()
        if loss.item() < threshold:
            break


# An optimizer stored on self, stepped in a `fit` method.
class Trainer:
    def __init__(self, model):
        self.model = model
        self.optimizer = torch.optim.SGD(model.parameters(), lr=0.1)

    def fit(self, loader, epochs):
        for epoch in range(epochs):
            for x in loader:
                loss = self.model(x)
                loss.backward()
                # CHECK: [[@LINE+1]]:17: GL301 `self.optimizer.step()` applies the gradients, but nothing resets them
                self.optimizer.step()


# An attribute with any name, assigned from a `torch.optim` constructor.
class ShortNames:
    def __init__(self, model):
        self.model = model
        self.o = torch.optim.AdamW(model.parameters())

    def fit(self, loader):
        for x in loader:
            loss = self.model(x)
            loss.backward()
            # CHECK: [[@LINE+1]]:13: GL301 `self.o.step()` applies the gradients, but nothing resets them
            self.o.step()


# A local with any name, assigned from a `torch.optim` constructor (`import torch.optim as
# optim`); `torch.autograd.backward(loss)` is a backward too.
def train_adam(model, loader):
    adam = optim.Adam(model.parameters())
    for x in loader:
        loss = model(x)
        torch.autograd.backward(loss)
        # CHECK: [[@LINE+1]]:9: GL301 `adam.step()` applies the gradients, but nothing resets them
        adam.step()


# torch.cuda.amp: `scaler.scale(loss).backward()` and `scaler.step(opt)`.
def train_amp(model, loader, opt):
    scaler = GradScaler()
    for x in loader:
        with torch.autocast("cuda"):
            loss = model(x)
        scaler.scale(loss).backward()
        # CHECK: [[@LINE+1]]:9: GL301 `scaler.step()` applies the gradients, but nothing resets them
        scaler.step(opt)
        scaler.update()


# Hugging Face Accelerate: `accelerator.backward(loss)`.
def train_accelerate(model, loader, optimizer, accelerator):
    for x in loader:
        loss = model(x)
        accelerator.backward(loss)
        # CHECK: [[@LINE+1]]:9: GL301 `optimizer.step()` applies the gradients, but nothing resets them
        optimizer.step()


# Several optimizers: each step is reported (names `opt_x`, `x_opt`, `optim` as a word or the
# start of "optimizer"/"optimiser").
def train_several(model, loader, opt_g, d_opt, encoder_optim, optimiserD, optims, dummy_optim2):
    for x in loader:
        loss = model(x)
        loss.backward()
        # CHECK: [[@LINE+1]]:9: GL301 `opt_g.step()` applies the gradients, but nothing resets them
        opt_g.step()
        # CHECK: [[@LINE+1]]:9: GL301 `d_opt.step()` applies the gradients, but nothing resets them
        d_opt.step()
        # CHECK: [[@LINE+1]]:9: GL301 `encoder_optim.step()` applies the gradients, but nothing resets them
        encoder_optim.step()
        # CHECK: [[@LINE+1]]:9: GL301 `optimiserD.step()` applies the gradients, but nothing resets them
        optimiserD.step()
        # CHECK: [[@LINE+1]]:9: GL301 `optims[0].step()` applies the gradients, but nothing resets them
        optims[0].step()
        # CHECK: [[@LINE+1]]:9: GL301 `dummy_optim2.step()` applies the gradients, but nothing resets them
        dummy_optim2.step()


# The twin of a fresh optimizer per iteration: the leaf is made once, outside the loop, so its
# gradient accumulates across the optimizers.
def refine_same_leaf(model, x, steps):
    x_in = x.detach().requires_grad_()
    for _ in range(steps):
        opt = torch.optim.SGD([x_in], lr=0.1)
        loss = model(x_in).sum()
        loss.backward()
        # CHECK: [[@LINE+1]]:9: GL301 `opt.step()` applies the gradients, but nothing resets them before the next `backward()`
        opt.step()
