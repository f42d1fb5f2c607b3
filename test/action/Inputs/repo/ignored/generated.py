import torch


def load(path):
    torch.set_grad_enabled(False)
    return torch.load(path)
