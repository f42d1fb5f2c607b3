# RUN: %check-file --select GL107 %s | FileCheck %s --allow-empty --implicit-check-not=': GL'
# GL107 grad-mode-restored-to-constant must stay silent below: each function restores the mode
# it found, or forces grad on where that is what it means.
import torch


def saved(model, batch):
    prev = torch.is_grad_enabled()
    torch.set_grad_enabled(False)
    try:
        return model(batch)
    finally:
        torch.set_grad_enabled(prev)


# Inside a region the function set itself: the `with` restores the caller's mode on exit.
def inside_enable_grad(model, batch):
    with torch.enable_grad():
        torch.set_grad_enabled(False)
        out = model(batch)
        torch.set_grad_enabled(True)
    return out


# Classifier guidance: grad forced on inside `@torch.no_grad()`, back off to what the decorator
# set; the decorator restores the caller's mode on exit.
@torch.no_grad()
def sample(model, x):
    torch.set_grad_enabled(True)
    x_in = x.detach().requires_grad_()
    model(x_in).sum().backward()
    torch.set_grad_enabled(False)
    return x - x_in.grad


# Grad turned on first by the function itself: the later True is what it set.
def forced(model, batch):
    torch.set_grad_enabled(True)
    torch.set_grad_enabled(False)
    out = model(batch)
    torch.set_grad_enabled(True)
    return out


# Enabling without a toggle before it.
def train_step(model, batch):
    torch.set_grad_enabled(True)
    return model(batch)


# Script code at top level: nothing calls it.
torch.set_grad_enabled(False)
print("warm up")
torch.set_grad_enabled(True)
