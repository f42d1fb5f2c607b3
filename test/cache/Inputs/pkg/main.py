from pkg.helpers import _disable


def evaluate(model, batch):
    _disable()
    return model(batch)
