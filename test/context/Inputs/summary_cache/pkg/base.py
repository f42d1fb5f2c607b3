# Fixture: the toggle the helpers build on.
import torch


def disable():
    torch.set_grad_enabled(False)
