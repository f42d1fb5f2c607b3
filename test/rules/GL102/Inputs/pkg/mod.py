"""A plain module of the package: importing it is enough to lose gradients."""
import torch

MODEL_DIM = 512
torch.set_grad_enabled(False)


def forward(x):
    return x * 2
