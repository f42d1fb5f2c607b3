import torch


def _enter():
    prev = torch.is_grad_enabled()
    torch.set_grad_enabled(False)
    return prev


def _leave(prev):
    torch.set_grad_enabled(prev)


def run_restored(model, x):
    prev = _enter()
    try:
        return model(x)
    finally:
        _leave(prev)


def run_leaky(model, x):
    _enter()
    return model(x)
