# RUN: not %check-file %s | FileCheck %s --implicit-check-not=': GL'
# GL302 and a project's own decorator: a function decorated with a decorator whose wrapper runs
# it inside `with torch.no_grad():` computes its loss with grad disabled, and `backward()`
# raises there, as under `@torch.no_grad()`. The same function under a decorator that adds no
# region trains as written: silent.
import functools

import torch
import torch.nn.functional as F


def evaluation_only(fn):
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        with torch.no_grad():
            return fn(*args, **kwargs)

    return wrapper


def logged(fn):
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        print(fn.__name__)
        return fn(*args, **kwargs)

    return wrapper


@evaluation_only
def train_step_under_no_grad(model, x, y, opt):
    opt.zero_grad()
    loss = F.mse_loss(model(x), y)
    # CHECK: [[@LINE+1]]:5: GL302 `loss` was computed with grad disabled
    loss.backward()
    opt.step()


@logged
def train_step_logged(model, x, y, opt):
    opt.zero_grad()
    loss = F.mse_loss(model(x), y)
    loss.backward()
    opt.step()
