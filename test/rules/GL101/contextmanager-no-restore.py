# RUN: not %check-file --ignore GL107 %s | FileCheck %s --implicit-check-not=': GL'
# GL101 on `@contextmanager` generators. The code before `yield` runs when a `with` block
# starts, the code after it when the block ends. A generator that disables grad before the
# `yield` and never puts the mode back after it (the code after the yield restores other state
# only) leaves grad off after every `with` block over it: a leak, reported at the toggle.
import contextlib
from contextlib import contextmanager

import torch


# Wrong: the code after the yield restores the model's training flag only.
@contextmanager
def evaluating(model):
    was_training = model.training
    model.eval()
    # CHECK: [[@LINE+1]]:5: GL101 `torch.set_grad_enabled(False)` disables grad mode before the `yield` of `evaluating`, and the code after it never restores it; every `with` block over `evaluating` leaves gradients off after it
    torch.set_grad_enabled(False)
    yield model
    model.train(was_training)


# Wrong: `contextlib.contextmanager` spelled in full, with a try/finally that restores other
# state.
@contextlib.contextmanager
def frozen(model):
    flags = [p.requires_grad for p in model.parameters()]
    # CHECK: [[@LINE+1]]:5: GL101 `torch.set_grad_enabled(False)` disables grad mode before the `yield` of `frozen`, and the code after it never restores it
    torch.set_grad_enabled(False)
    try:
        yield
    finally:
        for p, flag in zip(model.parameters(), flags):
            p.requires_grad_(flag)


# Correct: try/finally restores the saved mode.
@contextmanager
def evaluating_saved(model):
    prev = torch.is_grad_enabled()
    torch.set_grad_enabled(False)
    try:
        yield model
    finally:
        torch.set_grad_enabled(prev)


# Correct: the yield inside `with torch.no_grad():`, which the generator's exit closes.
@contextmanager
def evaluating_with(model):
    model.eval()
    with torch.no_grad():
        yield model
    model.train()


def use(model, x):
    with evaluating(model):
        model(x)
    with evaluating_saved(model):
        model(x)
