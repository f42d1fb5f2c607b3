import torch


def early_return(model, batch):
    torch.set_grad_enabled(False)
    out = model(batch)
    if out is None:
        return None
    torch.set_grad_enabled(True)
    return out


def two_segments(model, batch):
    torch.set_grad_enabled(False)
    first = model(batch)
    torch.set_grad_enabled(True)
    torch.set_grad_enabled(False)
    second = model(first)
    if second is None:
        return first
    torch.set_grad_enabled(True)
    return second


def in_loop(model, batches):
    out = None
    for batch in batches:
        torch.set_grad_enabled(False)
        out = model(batch)
        if out is None:
            continue
        torch.set_grad_enabled(True)
    return out
