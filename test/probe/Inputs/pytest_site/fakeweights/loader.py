import torch


def load_frozen(model):
    # LEAK: loader.py:[[@LINE+1]]: `load_frozen` disabled grad mode and returned with it still disabled
    torch.set_grad_enabled(False)
    return model
