# RUN: not %check-file %s | FileCheck %s --implicit-check-not=': GL'
# GL105 grad-context-not-entered: a grad-mode context manager that is created but never entered
# with `with` (it does nothing), entered as a class (it raises), or entered by hand with
# `__enter__()` on an object nobody keeps.
import torch
from torch import inference_mode


# A bare call as a statement creates the object and throws it away: grad mode is unchanged.
def bare_no_grad(model, batch):
    # CHECK: [[@LINE+1]]:5: GL105 `torch.no_grad()` as a statement does nothing: the context manager is created and thrown away, so grad mode is unchanged for the code below
    torch.no_grad()
    return model(batch)


def bare_enable_grad(model, batch):
    # CHECK: [[@LINE+1]]:5: GL105 `torch.enable_grad()` as a statement does nothing
    torch.enable_grad()
    return model(batch).sum().backward()


# Through `from torch import inference_mode`: the message uses the full name.
def bare_inference_mode(model, batch):
    # CHECK: [[@LINE+1]]:5: GL105 `torch.inference_mode()` as a statement does nothing
    inference_mode()
    return model(batch)


def bare_autograd_no_grad(model, batch):
    # CHECK: [[@LINE+1]]:5: GL105 `torch.autograd.no_grad()` as a statement does nothing
    torch.autograd.no_grad()
    return model(batch)


# `with` on the class instead of an instance fails at run time.
def with_class(model, batch):
    # CHECK: [[@LINE+1]]:10: GL105 `with torch.no_grad:` enters the class instead of an instance and fails at run time with a TypeError
    with torch.no_grad:
        return model(batch)


# Entered by hand and the object dropped: nothing can ever call `__exit__`, so the change
# outlives the code that wanted it.
def no_grad_entered_by_hand(model, batch):
    # CHECK: [[@LINE+1]]:5: GL105 `torch.no_grad().__enter__()` changes grad mode and drops the context object, so nothing can call `__exit__`
    torch.no_grad().__enter__()
    return model(batch)


# inference_mode keeps its mode in the context object, which is freed at the end of the
# statement: the call does nothing lasting, which is not what its author wanted either.
def inference_mode_entered_by_hand(model, batch):
    # CHECK: [[@LINE+1]]:5: GL105 `torch.inference_mode().__enter__()` does nothing lasting: the mode lives in the context object, which is freed at the end of the statement
    torch.inference_mode().__enter__()
    return model(batch)
