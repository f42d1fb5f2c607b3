import torch
from torch import set_grad_enabled as sge


def load_pipeline(path):
    # The real incident: a statement, not a `with`, and never undone.
    torch.set_grad_enabled(False)
    weights = torch.load(path)
    return weights


def load_checked(path):
    prev = torch.is_grad_enabled()
    sge(False)
    weights = torch.load(path)  # may raise: the restore below is skipped
    sge(prev)
    return weights


def load_safely(path):
    prev = torch.is_grad_enabled()
    torch.set_grad_enabled(False)
    try:
        return torch.load(path)
    finally:
        torch.set_grad_enabled(prev)


@torch.no_grad()
def encode(model, batch):
    return model(batch)


def evaluate(model, batch):
    torch.no_grad()  # does nothing: the context manager is thrown away
    return model(batch)


def private_toggle():
    torch._C._set_grad_enabled(False)
