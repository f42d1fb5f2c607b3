from torch.autograd.grad_mode import enable_grad, no_grad
