import torch
from torch._C import _set_grad_enabled


def private_toggle():
    torch._C._set_grad_enabled(False)  # safe fix
    _set_grad_enabled(True)  # no fix: `torch` is the only name this could use


def forgot_call(model, batch):
    with torch.no_grad:  # safe fix
        return model(batch)


def bare_statement(model, batch):
    torch.no_grad()  # unsafe fix: wraps the rest of the block
    out = model(batch)
    return out
