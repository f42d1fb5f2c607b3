import torch


def score(model, batch):
    torch.set_grad_enabled(False)
    out = model(batch)
    torch.set_grad_enabled(True)
    return out


def taken(model, batch, prev):
    torch.set_grad_enabled(False)
    out = model(batch) + prev
    torch.set_grad_enabled(True)
    return out


def branches(model, batch, flag):
    torch.set_grad_enabled(False)
    if flag:
        torch.set_grad_enabled(True)
        return model(batch)
    torch.set_grad_enabled(True)
    return None
