import torch


def evaluate(model, x):
    torch._C._set_grad_enabled(False)
    if x is None:
        return None
    out = model(x)
    torch._C._set_grad_enabled(True)
    return out
