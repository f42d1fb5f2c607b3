# RUN: %check-file %s | FileCheck %s --allow-empty --implicit-check-not=': GL'
# GL103 private-grad-mode-api must stay silent when only the public APIs are used.
import torch
from torch.autograd import grad_mode


def public_context_managers(model, batch):
    with torch.no_grad():
        a = model(batch)
    with torch.set_grad_enabled(False):
        b = model(batch)
    with torch.autograd.grad_mode.inference_mode():
        c = model(batch)
    return a, b, c


def public_toggle_restored(model, batch):
    prev = torch.is_grad_enabled()
    grad_mode.set_grad_enabled(False)
    try:
        return model(batch)
    finally:
        torch.autograd.set_grad_enabled(prev)


# Reading the mode through torch._C changes nothing.
def reads_only():
    return torch._C._is_grad_enabled()


# Text that names the private API is not a call.
NOTE = "never call torch._C._set_grad_enabled(False) directly"
