import torch


def prepare(model):
    # The test makes this toggle leak (it removes the restore below).
    torch.set_grad_enabled(False)
    model.load()
    torch.set_grad_enabled(True)
