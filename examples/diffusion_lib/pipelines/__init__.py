import torch

# Import-time toggle: every program that imports this package loses gradients.
torch.set_grad_enabled(False)
