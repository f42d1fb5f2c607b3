import torch


def load(path):
    label = "é😀"; torch.set_grad_enabled(False)
    return torch.load(path)
