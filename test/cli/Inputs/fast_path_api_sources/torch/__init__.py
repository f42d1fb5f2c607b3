# A package named torch that defines the grad-mode API itself, as PyTorch's own sources do.
from torch.autograd.grad_mode import enable_grad, no_grad
