from pkg.helpers import _disable

# An edit that moves the call down a line.

def evaluate(model, batch):
    _disable()
    return model(batch)
