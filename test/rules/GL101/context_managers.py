# RUN: not %check-file %s | FileCheck %s --implicit-check-not=': GL'
# GL101 on context-manager classes. `with C():` runs `C.__init__`, then `C.__enter__`, and at the
# end of the block (also when it raises) `C.__exit__`; `@C(...)` over a definition runs
# `C.__init__` and then `C.__call__`. What each does to grad mode comes from its summary.
import torch


# An `__enter__` that disables and an `__exit__` that never restores: the mode leaks at the end
# of every `with` block. Reported at the toggle in `__enter__`, `__exit__` as related location.
class LeakyNoGrad:
    def __enter__(self):
        # CHECK: [[@LINE+1]]:9: GL101 `torch.set_grad_enabled(False)` disables grad mode in `LeakyNoGrad.__enter__` and `LeakyNoGrad.__exit__` never restores it; every `with` block over this class leaves gradients off after it
        torch.set_grad_enabled(False)
        return self

    def __exit__(self, *exc):
        print("done")
        return False


# Correct: the mode saved in `__enter__` and restored in `__exit__`.
class SavingNoGrad:
    def __enter__(self):
        self.prev = torch.is_grad_enabled()
        torch.set_grad_enabled(False)
        return self

    def __exit__(self, *exc):
        torch.set_grad_enabled(self.prev)
        return False


# Correct: `__exit__` hands over to another context's exit, which restores.
class Delegating:
    def __enter__(self):
        torch.set_grad_enabled(False)
        return self

    def __exit__(self, *exc):
        return super().__exit__(*exc)


# The set_grad_enabled pattern: `__init__` saves and switches, `__exit__` restores. Correct in a
# `with`...
class SetGradLike:
    def __init__(self, mode):
        self.prev = torch.is_grad_enabled()
        torch.set_grad_enabled(mode)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        torch.set_grad_enabled(self.prev)


# ...and, with a `__call__` that puts the mode back first, correct as a decorator as well.
class SetGradDecorator:
    def __init__(self, mode):
        self.prev = torch.is_grad_enabled()
        torch.set_grad_enabled(mode)

    def __call__(self, function):
        torch.set_grad_enabled(self.prev)
        return function

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        torch.set_grad_enabled(self.prev)


def scoped(model, batch):
    with SavingNoGrad():
        out = model(batch)
    with SetGradLike(False):
        out = model(out)
    with SetGradDecorator(False):
        out = model(out)
    return out


def raising(model, batch):
    # The exit runs when the block raises too: no GL104 either.
    with SetGradLike(False):
        return model(batch)


def after_block_grad_is_back(model, batch, optimizer):
    with SetGradLike(False):
        frozen = model(batch)
    loss = model(batch).sum() + frozen.sum()
    loss.backward()
    optimizer.step()


def uses_decorator():
    @SetGradDecorator(False)
    def evaluate(model, batch):
        return model(batch)

    return evaluate


# No `__call__`: `@SetGradLike(False)` runs `__init__` when `evaluate` is defined, and nothing
# puts the mode back (PyTorch shipped this twice, in `_force_original_view_tracking` and
# `enforce_grad_layout_policy`). Reported at the decorator.
def defines_with_leaky_decorator():
    # CHECK: [[@LINE+1]]:6: GL101 `SetGradLike()` sets grad mode from its `mode` argument, False here, and `defines_with_leaky_decorator` returns with it still disabled
    @SetGradLike(False)
    def evaluate(model, batch):
        return model(batch)

    return evaluate


# A `with` block over LeakyNoGrad leaves the mode off after it: each such block is a leak in
# the function around it too (its class may be in another file, or installed, where the toggle
# itself is never reported).
def uses_leaky(model, batch):
    # CHECK: [[@LINE+1]]:10: GL101 `with LeakyNoGrad()` leaves grad mode disabled after its block (`LeakyNoGrad.__exit__` does not restore what `LeakyNoGrad.__enter__` disabled) and `uses_leaky` returns without restoring it
    with LeakyNoGrad():
        out = model(batch)
    return out


# The mode set again after the block: no GL101; but when the block raises, nothing sets it
# again (GL104).
def re_enables_after_leaky(model, batch):
    # CHECK: [[@LINE+1]]:10: GL104 `with LeakyNoGrad()` disables grad mode and `re_enables_after_leaky` restores it only on the normal path
    with LeakyNoGrad():
        out = model(batch)
    torch.set_grad_enabled(True)
    return out


# Correct: an `__exit__` that hands over (`super().__exit__`), or restores through a helper
# method of its class.
class RestoresThroughHelper:
    def __enter__(self):
        self.prev = torch.is_grad_enabled()
        torch.set_grad_enabled(False)
        return self

    def __exit__(self, *exc):
        self._restore()

    def _restore(self):
        torch.set_grad_enabled(self.prev)


def uses_restoring_exits(model, batch):
    with Delegating():
        out = model(batch)
    with RestoresThroughHelper():
        out = model(out)
    return out
