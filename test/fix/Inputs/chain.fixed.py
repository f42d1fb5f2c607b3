import torch


def evaluate(model, x):
    with torch.no_grad():
        if x is None:
            return None
        out = model(x)
    return out
