# Fixture (test/context): disables grad mode and never restores it.
import torch


def freeze():
    torch.set_grad_enabled(False)
