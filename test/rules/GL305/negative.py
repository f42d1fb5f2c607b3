# RUN: %check-file %s | FileCheck %s --allow-empty --implicit-check-not=': GL'
# GL305 zero-grad-between-backward-and-step must stay silent below: every reset is before the
# backward or after the step, or a backward follows it before the step.
import torch
from torch.cuda.amp import GradScaler


# zero_grad() at the top of the loop body.
def zero_grad_first(model, loader, opt):
    for x in loader:
        opt.zero_grad()
        loss = model(x)
        loss.backward()
        opt.step()


# zero_grad() right after step(), in nested loops (epochs x batches).
def zero_grad_after_step(model, loader, opt, epochs):
    for epoch in range(epochs):
        for x in loader:
            loss = model(x)
            loss.backward()
            opt.step()
            opt.zero_grad()


# Gradient accumulation in the right order: step, then reset.
def accumulate(model, loader, opt, k):
    for i, x in enumerate(loader):
        loss = model(x) / k
        loss.backward()
        if (i + 1) % k == 0:
            opt.step()
            opt.zero_grad()


# GAN-style: each optimizer is zeroed before its own backward.
def train_gan(gen, disc, loader, opt_g, opt_d):
    for real in loader:
        opt_d.zero_grad()
        d_loss = disc(real).mean() - disc(gen(real).detach()).mean()
        d_loss.backward()
        opt_d.step()
        opt_g.zero_grad()
        g_loss = -disc(gen(real)).mean()
        g_loss.backward()
        opt_g.step()


# A backward between the reset and the step: the step applies the second batch's gradients.
def discard_first(model, first, second, opt):
    loss = model(first)
    loss.backward()
    opt.zero_grad()
    loss = model(second)
    loss.backward()
    opt.step()


# An optimizer on self, reset through a helper method after the step.
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
            self.optimizer.step()
            self._reset()


# torch.cuda.amp and Accelerate in the right order.
def train_amp(model, loader, opt):
    scaler = GradScaler()
    for x in loader:
        opt.zero_grad(set_to_none=True)
        with torch.autocast("cuda"):
            loss = model(x)
        scaler.scale(loss).backward()
        scaler.step(opt)
        scaler.update()


def train_accelerate(model, loader, optimizer, accelerator):
    for x in loader:
        loss = model(x)
        accelerator.backward(loss)
        optimizer.step()
        optimizer.zero_grad()


# `scheduler.step()` after a reset is not an optimizer step.
def scheduler_after_reset(model, loader, opt, scheduler):
    for x in loader:
        loss = model(x)
        loss.backward()
        opt.step()
        opt.zero_grad()
        scheduler.step()


# A reset with no step after it (evaluation of gradient norms, say).
def no_step(model, x):
    loss = model(x)
    loss.backward()
    norm = sum(p.grad.norm() for p in model.parameters())
    model.zero_grad()
    return norm
