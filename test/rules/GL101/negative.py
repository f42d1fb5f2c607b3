# RUN: %check-file --ignore GL107 %s | FileCheck %s --allow-empty --implicit-check-not=': GL'
# GL101 grad-mode-leak must stay silent on every idiom below: each one leaves grad mode as it
# found it on every normal exit (or changes it on purpose, where the API says so).
import contextlib

import paddle
import torch


# Context managers restore on exit, normal or not.
def with_no_grad(model, batch):
    with torch.no_grad():
        return model(batch)


def with_set_grad_enabled(model, batch):
    with torch.set_grad_enabled(False):
        return model(batch)


def with_inference_mode(model, batch):
    with torch.inference_mode():
        return model(batch)


def with_enable_grad(model, batch):
    with torch.enable_grad():
        return model(batch).sum()


# Several context managers in one parenthesized `with`.
def with_parenthesized(model, batch, path):
    with (
        torch.no_grad(),
        open(path) as log,
    ):
        log.write(str(model(batch)))


# Decorators are context managers for the whole body.
@torch.no_grad()
def decorated_no_grad(model, batch):
    return model(batch)


@torch.inference_mode()
def decorated_inference_mode(model, batch):
    return model(batch)


@torch.set_grad_enabled(False)
def decorated_set_grad_enabled(model, batch):
    return model(batch)


# Save, toggle, restore in `finally`.
def save_and_restore(model, batch):
    prev = torch.is_grad_enabled()
    torch.set_grad_enabled(False)
    try:
        return model(batch)
    finally:
        torch.set_grad_enabled(prev)


# Enabling grad mode is never a leak of disabled grad mode.
def turn_on():
    torch.set_grad_enabled(True)


# Every branch restores before it returns.
def every_branch(model, batch, cached):
    torch.set_grad_enabled(False)
    if cached is not None:
        torch.set_grad_enabled(True)
        return cached
    out = batch * 2
    torch.set_grad_enabled(True)
    return out


# Exception handlers that restore and re-raise, plus a restore on the normal path.
def restore_in_base_exception(model, batch):
    torch.set_grad_enabled(False)
    try:
        out = model(batch)
    except BaseException:
        torch.set_grad_enabled(True)
        raise
    torch.set_grad_enabled(True)
    return out


def restore_in_exception(model, batch):
    torch.set_grad_enabled(False)
    try:
        out = model(batch)
    except Exception:
        torch.set_grad_enabled(True)
        raise
    torch.set_grad_enabled(True)
    return out


def restore_in_bare_except(model, batch):
    torch.set_grad_enabled(False)
    try:
        out = model(batch)
    except:  # noqa: E722 (the bare handler is the point of this case)
        torch.set_grad_enabled(True)
        raise
    torch.set_grad_enabled(True)
    return out


# Not PyTorch: paddle has its own set_grad_enabled...
def paddle_toggle():
    paddle.set_grad_enabled(False)


# ...and so may a local helper that merely shares the name.
def set_grad_enabled(mode):
    return mode


def local_toggle():
    set_grad_enabled(False)


# Mentions in text are not calls.
def mentions_only():
    """Call torch.set_grad_enabled(False) before inference (this docstring is not code)."""
    message = "torch.set_grad_enabled(False)"
    # torch.set_grad_enabled(False)
    return message


# A context-manager class: `__enter__` disables on purpose and `__exit__` restores.
class NoGradScope:
    def __enter__(self):
        self.prev = torch.is_grad_enabled()
        torch.set_grad_enabled(False)
        return self

    def __exit__(self, *exc):
        torch.set_grad_enabled(self.prev)
        return False


# A generator turned into a context manager: yielding with grad off is what it is for.
@contextlib.contextmanager
def no_grad_scope():
    prev = torch.is_grad_enabled()
    torch.set_grad_enabled(False)
    try:
        yield
    finally:
        torch.set_grad_enabled(prev)


# A private helper pair: `_enter()` disables and returns the previous mode, `_leave()` restores.
def _enter():
    prev = torch.is_grad_enabled()
    torch.set_grad_enabled(False)
    return prev


def _leave(prev):
    torch.set_grad_enabled(prev)


def uses_helper_pair(model, batch):
    prev = _enter()
    try:
        return model(batch)
    finally:
        _leave(prev)


# The caller picks the mode: a setter that forwards its own parameter is not a leak.
def set_mode(mode):
    torch.set_grad_enabled(mode)


# A `while True:` loop that restores before it breaks out.
def poll(model, queue):
    while True:
        batch = queue.get()
        torch.set_grad_enabled(False)
        if batch is None:
            torch.set_grad_enabled(True)
            break
        out = batch + 1
        torch.set_grad_enabled(True)
        model.record(out)


# A match statement that restores in every case, the wildcard included.
def dispatch(model, command):
    torch.set_grad_enabled(False)
    match command:
        case "eval":
            torch.set_grad_enabled(True)
            return "eval"
        case ("train", lr):
            torch.set_grad_enabled(True)
            return lr
        case _:
            torch.set_grad_enabled(True)
            return None


# A script's main block runs on purpose, once, at the top of the process.
if __name__ == "__main__":
    torch.set_grad_enabled(False)
    print(with_no_grad(None, None))


# A toggle inside a region that restores for it: the decorator's context restores the mode it
# found when the function returns (classifier guidance turns grad on and off inside).
@torch.no_grad()
def guided_sample(model, x, steps):
    for t in range(steps):
        torch.set_grad_enabled(True)
        x_in = x.detach().requires_grad_()
        model(x_in, t).sum().backward()
        torch.set_grad_enabled(False)
        x = x - x_in.grad
    return x


@torch.inference_mode()
def decorated_inference(model, x):
    torch.set_grad_enabled(False)
    return model(x)


def inside_with(model, x):
    with torch.no_grad():
        torch.set_grad_enabled(True)
        y = model(x)
        torch.set_grad_enabled(False)
    return y


# The same unchanged condition decides the toggle and its restore: no path takes one without
# the other (the restore to a constant is GL107's).
class AsymmetricLoss:
    def __init__(self, disable_grad):
        self.disable_grad = disable_grad

    def __call__(self, x, y):
        if self.disable_grad:
            torch.set_grad_enabled(False)
        weight = (1 - x * y) ** 2
        if self.disable_grad:
            torch.set_grad_enabled(True)  # noqa: GL107
        return weight


def correlated_parameter(model, x, frozen):
    if not frozen:
        pass
    else:
        prev = torch.is_grad_enabled()
        torch.set_grad_enabled(False)  # noqa: GL104
    out = model(x)
    if frozen:
        torch.set_grad_enabled(prev)
    return out
