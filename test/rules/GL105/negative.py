# RUN: %check-file %s | FileCheck %s --allow-empty --implicit-check-not=': GL'
# GL105 grad-context-not-entered must stay silent when every context manager is entered.
import contextlib

import torch


def with_blocks(model, batch):
    with torch.no_grad():
        a = model(batch)
    with torch.enable_grad():
        b = model(batch)
    with torch.inference_mode():
        c = model(batch)
    with torch.autograd.no_grad():
        d = model(batch)
    return a, b, c, d


@torch.no_grad()
def decorated_call(model, batch):
    return model(batch)


# The bare decorator form (no parentheses) is accepted by PyTorch too.
@torch.no_grad
def decorated_bare(model, batch):
    return model(batch)


@torch.inference_mode()
def decorated_inference(model, batch):
    return model(batch)


# Created first, entered later.
def created_then_entered(model, batch):
    ctx = torch.no_grad()
    with ctx:
        return model(batch)


# Entered through an ExitStack, which will exit it.
def exit_stack(model, batch):
    with contextlib.ExitStack() as stack:
        stack.enter_context(torch.no_grad())
        return model(batch)


# A factory that returns the context manager for its caller to enter.
def eval_context():
    return torch.inference_mode()
