# RUN: not %check-file %s | FileCheck %s --implicit-check-not=': GL'
# A class that switches grad mode in `__init__` and restores it in `__exit__` (the pattern of
# `torch.set_grad_enabled`) is correct in a `with`. As a decorator, `__init__` runs when the
# function is defined, and its `__call__` must put the mode back; one that only wraps the
# function leaves it switched. The decorator use is reported, never the `__init__` toggle
# (it is the enter half of the class's `__exit__`).
#
# As a module of a package, a decorator use at module level is GL102 (import time):
# RUN: rm -rf %t && mkdir -p %t/pkg && touch %t/pkg/__init__.py && cp %s %t/pkg/decorators.py
# RUN: cd %t && not %check-file pkg/decorators.py | FileCheck %s --check-prefix=PKG --implicit-check-not=__init__
import functools

import torch


# `__call__` wraps the function (the wrapper enters a fresh instance around each call), but
# does not undo what `__init__` did when the decorator was applied.
class disable_grad:
    def __init__(self):
        self.prev = torch.is_grad_enabled()
        torch.set_grad_enabled(False)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        torch.set_grad_enabled(self.prev)

    def __call__(self, function):
        @functools.wraps(function)
        def wrapper(*args, **kwargs):
            with self.__class__():
                return function(*args, **kwargs)

        return wrapper


# Without `__enter__` (used only as a decorator), and with a `__call__` that returns the function.
class frozen:
    def __init__(self):
        self.prev = torch.is_grad_enabled()
        torch.set_grad_enabled(False)

    def __exit__(self, *exc):
        torch.set_grad_enabled(self.prev)

    def __call__(self, function):
        return function


def make_scorer(model):
    # CHECK: [[@LINE+1]]:6: GL101 `disable_grad()` returns with grad mode disabled and `make_scorer` returns without restoring it
    @disable_grad()
    def score(batch):
        return model(batch)

    return score


def make_predictor(model):
    # CHECK: [[@LINE+1]]:6: GL101 `frozen()` returns with grad mode disabled and `make_predictor` returns without restoring it
    @frozen()
    def predict(batch):
        return model(batch)

    return predict


# PKG: decorators.py:[[@LINE+1]]:2: GL102 `disable_grad()` changes grad mode when `pkg.decorators` is imported and never restores it
@disable_grad()
def evaluate(model, batch):
    return model(batch)


# ---- silent -----------------------------------------------------------------------------------


# The same classes in a `with`: `__exit__` restores what `__init__` switched.
def scoped(model, batch):
    with disable_grad():
        out = model(batch)
    with frozen():
        out = model(out)
    return out


# A `__call__` that puts back the mode `__init__` saved, before wrapping: correct as a decorator.
class restoring_decorator:
    def __init__(self):
        self.prev = torch.is_grad_enabled()
        torch.set_grad_enabled(False)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        torch.set_grad_enabled(self.prev)

    def __call__(self, function):
        torch.set_grad_enabled(self.prev)

        @functools.wraps(function)
        def wrapper(*args, **kwargs):
            with self.__class__():
                return function(*args, **kwargs)

        return wrapper


def make_restoring(model):
    @restoring_decorator()
    def run(batch):
        return model(batch)

    return run


@restoring_decorator()
def evaluate_restoring(model, batch):
    return model(batch)

