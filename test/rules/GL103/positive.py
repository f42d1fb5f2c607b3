# RUN: not %check-file --ignore GL107 %s | FileCheck %s --implicit-check-not=': GL'
# GL103 private-grad-mode-api: grad mode changed through torch internals, which have no
# context-manager form and may change in any release.
import torch
from torch.autograd import grad_mode


# The private toggle left disabled is also a leak, so GL101 fires at the same place.
def fast_eval(model, batch):
    # CHECK: [[@LINE+2]]:5: GL101 `torch._C._set_grad_enabled(False)` disables grad mode and `fast_eval` returns with it still disabled
    # CHECK: [[@LINE+1]]:5: GL103 `torch._C._set_grad_enabled` is a private PyTorch API: it flips the thread's grad mode with no context manager to restore it, and it can change or disappear in any release
    torch._C._set_grad_enabled(False)
    return model(batch)


# Restored in `finally`: no leak, but both private calls are still reported.
def restored_privately(model, batch):
    prev = torch.is_grad_enabled()
    # CHECK: [[@LINE+1]]:5: GL103 `torch._C._set_grad_enabled` is a private PyTorch API
    torch._C._set_grad_enabled(False)
    try:
        return model(batch)
    finally:
        # CHECK: [[@LINE+1]]:9: GL103 `torch._C._set_grad_enabled` is a private PyTorch API
        torch._C._set_grad_enabled(prev)


# The un-underscored spelling in torch._C is internal too.
def c_module_spelling(model, batch):
    # CHECK: [[@LINE+1]]:5: GL103 `torch._C.set_grad_enabled` is a private PyTorch API
    torch._C.set_grad_enabled(False)
    out = batch * 2
    torch.set_grad_enabled(True)
    return out


# The private helper of torch.autograd.grad_mode, reached through a `from` import.
def grad_mode_module_spelling(model, batch):
    # CHECK: [[@LINE+1]]:5: GL103 `torch.autograd.grad_mode._set_grad_enabled` is a private PyTorch API
    grad_mode._set_grad_enabled(False)
    out = batch * 2
    torch.set_grad_enabled(True)
    return out
