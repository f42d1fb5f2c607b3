# RUN: not %check-file --select GL107 %s | FileCheck %s --implicit-check-not=': GL'
# GL107 grad-mode-restored-to-constant: a function disables grad mode and then turns it back on
# with set_grad_enabled(True) instead of restoring the mode it found. Every finding is checked
# on the line right below its CHECK; anything not listed here fails the test.
import torch


def score(model, batch):
    torch.set_grad_enabled(False)
    out = model(batch)  # noqa: GL104
    # CHECK: [[@LINE+1]]:5: GL107 `torch.set_grad_enabled(True)` turns grad mode on instead of restoring the mode `score` found before `torch.set_grad_enabled(False)`: called with grad disabled (under `torch.no_grad()`, in an evaluation loop), it turns gradients on for its caller
    torch.set_grad_enabled(True)
    return out


# The same condition tested twice, unchanged in between: the toggle is undone on every path,
# but to a constant.
class AsymmetricLoss:
    def __init__(self, disable_grad):
        self.disable_grad = disable_grad

    def __call__(self, x, y):
        if self.disable_grad:
            torch.set_grad_enabled(False)
        weight = (1 - x * y) ** 2
        if self.disable_grad:
            # CHECK: [[@LINE+1]]:13: GL107 `torch.set_grad_enabled(True)` turns grad mode on instead of restoring the mode `AsymmetricLoss.__call__` found
            torch.set_grad_enabled(True)
        return weight


# Through a private helper that disables, and with the private setter.
def _off():
    torch.set_grad_enabled(False)


def evaluate(model, loader):
    _off()
    total = sum(model(x) for x in loader)  # noqa: GL104
    # CHECK: [[@LINE+1]]:5: GL107 `torch._C._set_grad_enabled(True)` turns grad mode on instead of restoring the mode `evaluate` found before `_off()`
    torch._C._set_grad_enabled(True)  # noqa: GL103
    return total


# Restored in a finally block: exception safe, still a constant.
def safe_but_constant(model, batch):
    torch.set_grad_enabled(False)
    try:
        return model(batch)
    finally:
        # CHECK: [[@LINE+1]]:9: GL107 `torch.set_grad_enabled(True)` turns grad mode on instead of restoring the mode `safe_but_constant` found
        torch.set_grad_enabled(True)
