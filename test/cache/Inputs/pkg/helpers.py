import torch


def _disable():
    torch.set_grad_enabled(False)
