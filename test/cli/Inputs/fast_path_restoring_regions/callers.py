"""Restoring regions whose functions matter to others: the fast path leaves them out at first
and parses them in a rescan, because they call a helper that has a summary or whose callers
a rule counts."""
import torch


def _disable():
    torch.set_grad_enabled(False)  # GL101 (a private helper: its callers report)


@torch.no_grad()
def evaluate_restored(model, x):
    _disable()  # the decorator puts the caller's mode back
    return model(x)


def validate(model, loader):
    model.eval()
    for x in loader:
        model(x)  # GL303 unless every caller disables grad


@torch.no_grad()
def run_validation(model, loader):
    validate(model, loader)


def train(model, x, y, optimizer):
    optimizer.zero_grad()
    evaluate_restored(model, x)
    loss = ((model(x) - y) ** 2).mean()
    loss.backward()
    optimizer.step()
