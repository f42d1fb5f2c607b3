import torch


def freeze(model):
    model.eval()
    torch.set_grad_enabled(False)
