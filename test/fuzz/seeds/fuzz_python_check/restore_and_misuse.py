import torch


def f(model, x):
    prev = torch.is_grad_enabled()
    try:
        torch.set_grad_enabled(False)
        y = model(x)
    finally:
        torch.set_grad_enabled(prev)
    with torch.no_grad:
        pass
    torch.no_grad()
    torch._C._set_grad_enabled(False)
    return y
