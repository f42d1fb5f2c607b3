"""The toggle is undone before the module finishes importing."""
import torch

torch.set_grad_enabled(False)
TABLE = [i * 2 for i in range(10)]
torch.set_grad_enabled(True)
