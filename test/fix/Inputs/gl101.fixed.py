import torch
import torch as th


def early_return(model, x):
    with torch.no_grad():
        if x is None:
            return None  # leaks: the restore below is skipped
        y = model(x)
    return y


def alias_and_saved_mode(model, x):
    with th.no_grad():
        for layer in model:
            if layer is None:
                return x
            x = layer(x)
    return x


def no_restore(model, x):
    torch.set_grad_enabled(False)
    return model(x)


def restore_elsewhere(model, x):
    torch.set_grad_enabled(False)
    if x is None:
        return None
    if x:
        torch.set_grad_enabled(True)
    return model(x)


def stream(model, batches):
    # A generator: a `with` around the yield would still leak to the caller. No fix.
    torch.set_grad_enabled(False)
    for batch in batches:
        yield model(batch)
    torch.set_grad_enabled(True)
