# RUN: %check-file %s | FileCheck %s --allow-empty --implicit-check-not=': GL'
# GL104 grad-mode-restore-not-exception-safe must stay silent when the restore also runs on
# the exceptional path, or when nothing between toggle and restore can raise.
import torch


# The restore is in `finally`.
def evaluate(model, batch):
    prev = torch.is_grad_enabled()
    torch.set_grad_enabled(False)
    try:
        return model(batch)
    finally:
        torch.set_grad_enabled(prev)


# A `with` block restores on every exit.
def evaluate_with(model, batch):
    with torch.set_grad_enabled(False):
        return model(batch)


# Only assignments and arithmetic between toggle and restore: no call that could raise.
def flip(batch):
    prev = torch.is_grad_enabled()
    torch.set_grad_enabled(False)
    scaled = batch * 2
    offset = scaled + 1
    torch.set_grad_enabled(prev)
    return offset


# `except Exception` restores and re-raises, and the normal path restores too.
def evaluate_all_errors(model, batch):
    prev = torch.is_grad_enabled()
    torch.set_grad_enabled(False)
    try:
        out = model(batch)
    except Exception:
        torch.set_grad_enabled(prev)
        raise
    torch.set_grad_enabled(prev)
    return out


# The helper pair from the positive test, used exception-safely.
def _enter():
    prev = torch.is_grad_enabled()
    torch.set_grad_enabled(False)
    return prev


def _leave(prev):
    torch.set_grad_enabled(prev)


def evaluate_with_helpers(model, batch):
    prev = _enter()
    try:
        return model(batch)
    finally:
        _leave(prev)


# A private helper that only disables never restores: its caller gets the GL101, and there is
# no restore that an exception could skip.
def _disable_autograd(model):
    torch.set_grad_enabled(False)
    model.eval()


def prepare(model):
    _disable_autograd(model)  # noqa: GL101
