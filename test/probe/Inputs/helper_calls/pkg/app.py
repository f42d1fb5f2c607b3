import torch
from helpers import freeze


def evaluate():
    freeze()
    return 1


def never_run():
    freeze()
    return 2


def _off():
    torch.set_grad_enabled(False)


def validate():
    _off()
    return 3
