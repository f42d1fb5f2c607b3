import torch


def freeze():
    torch.set_grad_enabled(False)
