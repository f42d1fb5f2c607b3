"""A package whose __init__ turns gradients off for every program that imports it."""
import torch

torch.set_grad_enabled(False)

from . import mod  # noqa: E402
