"""Module-level work under a context manager restores grad mode when the block ends."""
import torch

with torch.no_grad():
    WEIGHTS = torch.zeros(4)

torch.set_grad_enabled(True)
