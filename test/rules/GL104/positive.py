# RUN: not %check-file --ignore GL107 %s | FileCheck %s --implicit-check-not=': GL'
# GL104 grad-mode-restore-not-exception-safe: every normal path restores grad mode, but a call
# between the toggle and the restore can raise, and then nothing restores it.
import torch


# The classic: save, toggle, call, restore, all in straight-line code.
def evaluate(model, batch):
    prev = torch.is_grad_enabled()
    # CHECK: [[@LINE+1]]:5: GL104 `torch.set_grad_enabled(False)` disables grad mode and `evaluate` restores it only on the normal path; an exception before the restore leaves gradients off for the rest of the thread
    torch.set_grad_enabled(False)
    out = model(batch)
    torch.set_grad_enabled(prev)
    return out


# The handler catches ValueError only: any other exception still escapes with grad mode off.
def evaluate_some_errors(model, batch):
    prev = torch.is_grad_enabled()
    # CHECK: [[@LINE+1]]:5: GL104 `torch.set_grad_enabled(False)` disables grad mode and `evaluate_some_errors` restores it only on the normal path
    torch.set_grad_enabled(False)
    try:
        out = model(batch)
    except ValueError:
        torch.set_grad_enabled(prev)
        raise
    torch.set_grad_enabled(prev)
    return out


# A method: the message names the class.
class Runner:
    def step(self, batch):
        # CHECK: [[@LINE+1]]:9: GL104 `torch.set_grad_enabled(False)` disables grad mode and `Runner.step` restores it only on the normal path
        torch.set_grad_enabled(False)
        out = self.model(batch)
        torch.set_grad_enabled(True)
        return out


# Through helpers: `_enter()` disables (and returns the old mode), `_leave()` restores; the
# call between them can raise.
def _enter():
    prev = torch.is_grad_enabled()
    torch.set_grad_enabled(False)
    return prev


def _leave(prev):
    torch.set_grad_enabled(prev)


def evaluate_with_helpers(model, batch):
    # CHECK: [[@LINE+1]]:12: GL104 `_enter()` disables grad mode and `evaluate_with_helpers` restores it only on the normal path
    prev = _enter()
    out = model(batch)
    _leave(prev)
    return out
