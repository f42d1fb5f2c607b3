import torch
import torch as th
from torch import inference_mode


def forgot_calls(model, x):
    with torch.no_grad():
        y = model(x)
    with th.enable_grad() as guard, torch.autograd.grad_mode.no_grad():
        y = model(y)
    with (inference_mode()):
        y = model(y)
    # set_grad_enabled needs its mode: no fix.
    with torch.set_grad_enabled:
        return model(y)
