"""Regions that restore, but with something inside that a rule reads, or spelled so that a
rule reports them: each function is parsed."""
import torch


@torch.no_grad()
def fine_tune(model, x, y):
    loss = ((model(x) - y) ** 2).mean()
    loss.backward()  # GL302: computed with grad off


def score(model, x, target):
    with torch.inference_mode():
        features = model(x)
    loss = (features - target).sum()  # GL304 (when only GL304 runs, backward is no marker)
    loss.backward()


@torch.no_grad()
def reset(model):
    model.zero_grad()


@torch.no_grad()
def toggles(model, x):
    torch.set_grad_enabled(False)  # GL101 aside: the decorator restores
    return model(x)


def not_entered(model, x):
    with torch.no_grad:  # GL105: the class, not an instance
        return model(x)


def thrown_away(model, x):
    torch.no_grad()  # GL105: does nothing
    return model(x)


def entered_by_hand(model, x):
    torch.no_grad().__enter__()  # GL105
    return model(x)


class Frozen:
    with torch.no_grad():  # a class body runs at import
        scale = torch.ones(1)
