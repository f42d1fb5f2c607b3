"""Backwards in functions. One that names no optimizer step and nothing that disables grad is no
reason to parse its function (`check_gradients`); the others are."""
import torch
from torch import no_grad as frozen

from helpers import disable, evaluate

inference = torch.inference_mode


def check_gradients(model, x):
    model(x).sum().backward()
    return [p.grad for p in model.parameters()]


def train(model, loader, optimizer):
    for x in loader:
        loss = model(x).sum()
        loss.backward()
        optimizer.step()  # GL301: no zero_grad in the loop


def backward_through_alias(model, x):
    with frozen():
        y = model(x).sum()
    y.backward()  # GL302: `frozen` is torch.no_grad


def backward_through_binding(model, x):
    with inference():
        y = model(x).sum()
    y.backward()  # parsed, though the lowering does not follow the binding yet: no GL302


def backward_after_helper(model, x):
    disable()
    y = model(x).sum()
    y.backward()  # GL302: the helper leaves grad disabled (a rescan parses this caller)


def train_and_evaluate(model, x, loader):
    model(x).sum().backward()
    evaluate(model, loader)  # a call site GL303 counts: a rescan parses this caller
