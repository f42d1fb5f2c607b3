# Fixture: a helper that imports nothing of the project.
import torch


def switch_off():
    torch.set_grad_enabled(False)
