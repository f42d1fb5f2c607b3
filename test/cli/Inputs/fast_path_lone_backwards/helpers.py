import torch


def disable():
    torch.set_grad_enabled(False)  # GL101 is reported at the callers'


def evaluate(model, loader):
    model.eval()
    for x in loader:
        model(x)  # GL303: its caller does not disable grad
