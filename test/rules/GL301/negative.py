# RUN: %check-file %s | FileCheck %s --allow-empty --implicit-check-not=': GL'
# GL301 missing-zero-grad must stay silent on every loop below: each one resets the gradients
# between two backward calls that have an optimizer step between them (or does not step at all).
import torch
from torch.cuda.amp import GradScaler


# zero_grad() at the top of the loop body.
def zero_grad_first(model, loader, opt):
    for x, y in loader:
        opt.zero_grad()
        loss = (model(x) - y).pow(2).mean()
        loss.backward()
        opt.step()


# zero_grad() right after step(), in nested loops (epochs x batches).
def zero_grad_after_step(model, loader, optimizer, epochs):
    for epoch in range(epochs):
        for x in loader:
            loss = model(x)
            loss.mean().backward()
            optimizer.step()
            optimizer.zero_grad()


# model.zero_grad() resets the gradients as well as optimizer.zero_grad() does.
def model_zero_grad(model, loader, opt):
    for x in loader:
        model.zero_grad(set_to_none=True)
        loss = model(x)
        loss.backward()
        opt.step()


# `p.grad = None` and `p.grad.zero_()` on a named parameter.
def reset_by_hand(model, loader, opt):
    for x in loader:
        model.weight.grad = None
        loss = model(x)
        loss.backward()
        opt.step()
        model.bias.grad.zero_()


# Gradient accumulation: backward every iteration, a step and a reset every k iterations.
def accumulate(model, loader, opt, k):
    for i, x in enumerate(loader):
        loss = model(x) / k
        loss.backward()
        if i % k == 0:
            opt.step()
            opt.zero_grad()


# zero_grad() misplaced between backward and step: that is GL305, reported there, not GL301.
def misplaced(model, loader, opt):
    for x in loader:
        loss = model(x)
        loss.backward()
        opt.zero_grad()  # noqa: GL305
        opt.step()


# An optimizer stored on self, reset through a helper method.
class Trainer:
    def __init__(self, model):
        self.model = model
        self.optimizer = torch.optim.SGD(model.parameters(), lr=0.1)

    def _reset(self):
        self.optimizer.zero_grad()

    def fit(self, loader, epochs):
        for epoch in range(epochs):
            for x in loader:
                self._reset()
                loss = self.model(x)
                loss.backward()
                self.optimizer.step()


# A helper function that resets, called after the step.
def _clear_gradients(opt):
    opt.zero_grad(set_to_none=True)


def helper_after_step(model, loader, opt):
    for x in loader:
        loss = model(x)
        loss.backward()
        opt.step()
        _clear_gradients(opt)


# GAN-style: two optimizers, each zeroed before its own backward.
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


# torch.cuda.amp with a reset at the top of the loop.
def train_amp(model, loader, opt):
    scaler = GradScaler()
    for x in loader:
        opt.zero_grad(set_to_none=True)
        with torch.autocast("cuda"):
            loss = model(x)
        scaler.scale(loss).backward()
        scaler.step(opt)
        scaler.update()


# Accelerate with a reset after the step.
def train_accelerate(model, loader, optimizer, accelerator):
    for x in loader:
        loss = model(x)
        accelerator.backward(loss)
        optimizer.step()
        optimizer.zero_grad()


# Lightning manual optimization with a reset.
class LitModel:
    def training_step(self, batch, batch_idx):
        opt = self.optimizers()
        for x in batch:
            opt.zero_grad()
            loss = self.model(x)
            self.manual_backward(loss)
            opt.step()


# `scheduler.step()` and `env.step(action)` are not optimizer steps.
def not_optimizer_steps(model, loader, scheduler, env):
    for x in loader:
        loss = model(x)
        loss.backward()
        scheduler.step()
        env.step(x)


# Nor are those of objects whose name starts "optimized", "optimal" or "optimum" (a compiled
# model, a planner): "optim" there is not an optimizer's word.
def optimal_names(model, loader, optimal_env, optimized_sim):
    for x in loader:
        loss = model(x)
        loss.backward()
        optimal_env.step(x)
        optimized_sim.step()


# A learning-rate scheduler from `torch.optim.lr_scheduler` is not an optimizer either.
def lr_scheduler(model, loader, opt):
    policy = torch.optim.lr_scheduler.StepLR(opt, step_size=10)
    for x in loader:
        opt.zero_grad()
        loss = model(x)
        loss.backward()
        opt.step()
        policy.step()


# One step, no later backward.
def single_step(model, x, opt):
    loss = model(x)
    loss.backward()
    opt.step()


# Backward inside a helper is not followed (the helper may build its own model).
def _backward(model, x):
    model(x).sum().backward()


def helper_backward(model, loader, opt):
    for x in loader:
        _backward(model, x)
        opt.step()


# A new optimizer over a new leaf tensor in every iteration: nothing carries over from one
# iteration's step to the next backward (adversarial inputs, guidance refinement).
def refine(model, x, steps):
    for _ in range(steps):
        x_in = x.detach().requires_grad_()
        opt = torch.optim.SGD([x_in], lr=0.1)
        loss = model(x_in).sum()
        loss.backward()
        opt.step()
        x = x_in
