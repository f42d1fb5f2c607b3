# RUN: not %check-file %s | FileCheck %s --implicit-check-not=': GL'
# GL303 and a project's own decorators. A decorator (or a factory returning one) that runs the
# decorated function in `torch.no_grad()` / `torch.inference_mode()` makes its evaluation loop
# run with grad disabled, as `@torch.no_grad()` does: silent. Decorators that do not (a plain
# wrapper, one that may hand the function back untouched, one that turns grad on) leave grad
# on: reported.
import functools
from functools import wraps

import torch


# The factory of ultralytics/yolov5 `utils/torch_utils.py`: `@smart_inference_mode()`.
def smart_inference_mode(torch_1_9=True):
    def decorate(fn):
        return (torch.inference_mode if torch_1_9 else torch.no_grad)()(fn)

    return decorate


def no_grad_decorator(fn):
    return torch.no_grad()(fn)


def no_grad_wrapper(fn):
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        with torch.no_grad():
            return fn(*args, **kwargs)

    return wrapper


def inference_wrapper_factory(message):
    def decorate(fn):
        @wraps(fn)
        @torch.inference_mode()
        def wrapper(*args, **kwargs):
            print(message)
            return fn(*args, **kwargs)

        return wrapper

    return decorate


@smart_inference_mode()
def run_validation(model, loader):
    model.eval()
    for x in loader:
        model(x)


@no_grad_decorator
def evaluate_decorated(model, loader):
    model.eval()
    for x in loader:
        model(x)


@no_grad_wrapper
def evaluate_wrapped(model, loader):
    model.eval()
    for x in loader:
        model(x)


@inference_wrapper_factory("evaluating")
def evaluate_factory_wrapped(model, loader):
    model.eval()
    for x in loader:
        model(x)


class Validator:
    @smart_inference_mode()
    def __call__(self, model, loader):
        model.eval()
        for x in loader:
            model(x)


# Wrong: a wrapper that adds no grad-mode region.
def timed(fn):
    @wraps(fn)
    def wrapper(*args, **kwargs):
        return fn(*args, **kwargs)

    return wrapper


# Wrong: may hand the function back as it was.
def maybe_no_grad(fn):
    if torch.__version__ < "1.0":
        return fn
    return torch.no_grad()(fn)


# Wrong: turns grad on.
def with_grad(fn):
    return torch.enable_grad()(fn)


@timed
def evaluate_timed(model, loader):
    model.eval()
    for x in loader:
        # CHECK: [[@LINE+1]]:9: GL303 `model` runs in evaluation mode but with grad enabled
        model(x)


@maybe_no_grad
def evaluate_maybe(model, loader):
    model.eval()
    for x in loader:
        # CHECK: [[@LINE+1]]:9: GL303 `model` runs in evaluation mode but with grad enabled
        model(x)


@with_grad
def evaluate_with_grad(model, loader):
    model.eval()
    for x in loader:
        # CHECK: [[@LINE+1]]:9: GL303 `model` runs in evaluation mode but with grad enabled
        model(x)
