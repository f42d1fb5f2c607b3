import torch
import torch as th
from torch._C import _set_grad_enabled


def toggles(flag):
    torch.set_grad_enabled(False)  # the comment stays
    th.set_grad_enabled(flag)
    torch.set_grad_enabled(True)


def no_fix(flag):
    # `torch` is the only name the public function could be reached through, and this call
    # does not spell it: no fix.
    _set_grad_enabled(flag)
    # The value is used: the private call returns None, the public one an object.
    result = torch._C._set_grad_enabled(flag)
    return result
