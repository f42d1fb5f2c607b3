# Fixture (test/context): a module of a namespace package (no __init__.py above it).
import torch


def inference_mode_on():
    torch.set_grad_enabled(False)
