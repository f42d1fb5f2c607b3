import torch

from ctxlib.contexts import EntersOff, SetGradLike, SwitchesOnly


def evaluate(model, batch):
    with SetGradLike(False):
        return model(batch)


def switches(model, batch):
    # CHECK: main.py:[[@LINE+1]]:10: GL101 `SwitchesOnly()` sets grad mode from its `mode` argument, False here, and `switches` returns with it still disabled
    with SwitchesOnly(False):
        out = model(batch)
    return out


def decorates():
    # CHECK: main.py:[[@LINE+1]]:6: GL101 `SetGradLike()` sets grad mode from its `mode` argument, False here, and `decorates` returns with it still disabled
    @SetGradLike(False)
    def inner(model, batch):
        return model(batch)

    return inner


def enters(model, batch):
    # CHECK: main.py:[[@LINE+1]]:10: GL101 `with EntersOff()` leaves grad mode disabled after its block (`EntersOff.__exit__` does not restore what `EntersOff.__enter__` disabled) and `enters` returns without restoring it
    with EntersOff():
        out = model(batch)
    return out
