# RUN: not %check-file --ignore GL107 %s | FileCheck %s --implicit-check-not=': GL'
# GL101 grad-mode-leak: grad mode is turned off by a statement and some normal exit of the
# function (return, end of body, yield, await) leaves it off. Every finding is checked on the
# line right below its CHECK; anything not listed here fails the test.
import asyncio

import torch
import torch as th
import torch.autograd.grad_mode as gm
from torch import set_grad_enabled as sge
from torch.autograd import grad_mode


# The incident gradlint was built for: a toggle, then return.
def load_pipeline(path):
    # CHECK: [[@LINE+1]]:5: GL101 `torch.set_grad_enabled(False)` disables grad mode and `load_pipeline` returns with it still disabled; every later `backward()` in this thread computes no gradients
    torch.set_grad_enabled(False)
    return torch.load(path)


# No return statement: the function falls off the end of its body.
def freeze(model):
    # CHECK: [[@LINE+1]]:5: GL101 `torch.set_grad_enabled(False)` disables grad mode and `freeze` returns with it still disabled
    torch.set_grad_enabled(False)
    model.eval()


# The early return skips the restore that the other path reaches.
def predict(model, batch, cached):
    # CHECK: [[@LINE+1]]:5: GL101 `torch.set_grad_enabled(False)` disables grad mode and `predict` returns with it still disabled
    torch.set_grad_enabled(False)
    if cached is not None:
        return cached
    out = model(batch)
    torch.set_grad_enabled(True)
    return out


# `continue` jumps over the restore at the bottom of the loop body.
def score_all(model, batches):
    results = []
    for batch in batches:
        # CHECK: [[@LINE+1]]:9: GL101 `torch.set_grad_enabled(False)` disables grad mode and `score_all` returns with it still disabled
        torch.set_grad_enabled(False)
        if batch is None:
            continue
        results.append(model(batch))
        torch.set_grad_enabled(True)
    return results


# `break` leaves the loop before the restore.
def first_hit(model, batches):
    for batch in batches:
        # CHECK: [[@LINE+1]]:9: GL101 `torch.set_grad_enabled(False)` disables grad mode and `first_hit` returns with it still disabled
        torch.set_grad_enabled(False)
        if model(batch).any():
            break
        torch.set_grad_enabled(True)


# A generator that yields with grad mode off: the caller's code runs with gradients off.
def stream(model, batches):
    # CHECK: [[@LINE+1]]:5: GL101 `torch.set_grad_enabled(False)` disables grad mode and `stream` yields with it still disabled; its caller runs with gradients off while it is suspended
    torch.set_grad_enabled(False)
    for batch in batches:
        yield model(batch)
    torch.set_grad_enabled(True)


# A coroutine that awaits with grad mode off: every other task on the loop runs without it.
async def serve(model, queue):
    # CHECK: [[@LINE+1]]:5: GL101 `torch.set_grad_enabled(False)` disables grad mode and `serve` awaits with it still disabled; its caller runs with gradients off while it is suspended
    torch.set_grad_enabled(False)
    batch = await queue.get()
    out = model(batch)
    torch.set_grad_enabled(True)
    await asyncio.sleep(0)
    return out


# A flag the function does not own (not a parameter): it may be False.
def configure(config):
    # CHECK: [[@LINE+1]]:5: GL101 `torch.set_grad_enabled(...)` may disable grad mode and `configure` returns with it still disabled
    torch.set_grad_enabled(config.train)
    return config


# `import torch as th`.
def via_alias():
    # CHECK: [[@LINE+1]]:5: GL101 `torch.set_grad_enabled(False)` disables grad mode and `via_alias` returns with it still disabled
    th.set_grad_enabled(False)


# `from torch import set_grad_enabled as sge`.
def via_from_import():
    # CHECK: [[@LINE+1]]:5: GL101 `torch.set_grad_enabled(False)` disables grad mode and `via_from_import` returns with it still disabled
    sge(False)


# `from torch.autograd import grad_mode`.
def via_grad_mode_module():
    # CHECK: [[@LINE+1]]:5: GL101 `torch.autograd.grad_mode.set_grad_enabled(False)` disables grad mode and `via_grad_mode_module` returns with it still disabled
    grad_mode.set_grad_enabled(False)


# `import torch.autograd.grad_mode as gm`.
def via_module_alias():
    # CHECK: [[@LINE+1]]:5: GL101 `torch.autograd.grad_mode.set_grad_enabled(False)` disables grad mode and `via_module_alias` returns with it still disabled
    gm.set_grad_enabled(False)


# `set_grad_enabled(False)` toggles when it is constructed; assigning the object and never
# entering it with `with` leaves the mode off.
def assigned_never_entered(model, batch):
    # CHECK: [[@LINE+1]]:9: GL101 `torch.set_grad_enabled(False)` disables grad mode and `assigned_never_entered` returns with it still disabled
    m = torch.set_grad_enabled(False)
    return model(batch)


# A lambda used as a callback: calling it constructs `set_grad_enabled(False)`, which toggles.
# CHECK: [[@LINE+1]]:25: GL101 `torch.set_grad_enabled(False)` disables grad mode and `<lambda>` returns with it still disabled
on_eval_start = lambda: torch.set_grad_enabled(False)


# A method: the message names the class too.
class Evaluator:
    def prepare(self, model):
        # CHECK: [[@LINE+1]]:9: GL101 `torch.set_grad_enabled(False)` disables grad mode and `Evaluator.prepare` returns with it still disabled
        torch.set_grad_enabled(False)
        self.model = model.eval()


# Interprocedural: a private helper that disables grad mode on purpose...
def _disable():
    torch.set_grad_enabled(False)


# ...is fine as long as its callers restore; this caller does not, so it is reported at the call.
def run_eval(model, batch):
    # CHECK: [[@LINE+1]]:5: GL101 `_disable()` returns with grad mode disabled and `run_eval` returns without restoring it; every later `backward()` in this thread computes no gradients
    _disable()
    return model(batch)


# A public function is an API of its own: it is reported at its own toggle even though a
# caller in this file restores after calling it.
def disable_gradients():
    # CHECK: [[@LINE+1]]:5: GL101 `torch.set_grad_enabled(False)` disables grad mode and `disable_gradients` returns with it still disabled
    torch.set_grad_enabled(False)


def careful_caller(model, batch):
    disable_gradients()
    try:
        return model(batch)
    finally:
        torch.set_grad_enabled(True)


# A lambda that toggles as a side effect of its body (the tuple is not a context manager).
# CHECK: [[@LINE+1]]:26: GL101 `torch.set_grad_enabled(False)` disables grad mode and `<lambda>` returns with it still disabled
to_eval = lambda model: (torch.set_grad_enabled(False), model.eval())


# The twin of a toggle inside a decorated function: without the decorator nothing restores.
def undecorated_sample(model, x):
    torch.set_grad_enabled(True)
    out = model(x)
    # CHECK: [[@LINE+1]]:5: GL101 `torch.set_grad_enabled(False)` disables grad mode and `undecorated_sample` returns with it still disabled
    torch.set_grad_enabled(False)
    return out


# The twin of correlated conditions: the condition is reassigned between the two tests, so the
# path that takes the first branch and skips the second exists.
class ChangedCondition:
    def __call__(self, x):
        if self.disable_grad:
            # CHECK: [[@LINE+1]]:13: GL101 `torch.set_grad_enabled(False)` disables grad mode and `ChangedCondition.__call__` returns with it still disabled
            torch.set_grad_enabled(False)
        self.disable_grad = x.numel() > 4
        if self.disable_grad:
            torch.set_grad_enabled(True)  # noqa: GL107
        return x


def different_conditions(model, x, a, b):
    if a:
        # CHECK: [[@LINE+1]]:9: GL101 `torch.set_grad_enabled(False)` disables grad mode and `different_conditions` returns with it still disabled
        torch.set_grad_enabled(False)
    out = model(x)
    if b:
        torch.set_grad_enabled(True)  # noqa: GL107
    return out
