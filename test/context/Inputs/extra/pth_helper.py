# Fixture (test/context): reached only through a .pth path line of the environment.
import torch


def disable():
    torch.set_grad_enabled(False)
