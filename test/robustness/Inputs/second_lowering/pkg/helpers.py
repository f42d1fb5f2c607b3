import torch


def disable():
    torch.set_grad_enabled(False)


def forward(model, x):
    disable()
    return model(x)


class Frozen:
    def __enter__(self):
        torch.set_grad_enabled(False)

    def __exit__(self, *args):
        pass
