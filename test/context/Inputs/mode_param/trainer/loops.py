# Fixture (test/context/mode_parameter.test): helpers that take the grad mode as a parameter.
import torch


def run_epoch(model, loader, opt=None, train=True):
    torch.set_grad_enabled(train)
    for batch in loader:
        loss = model(batch)
        if train:
            opt.zero_grad()
            loss.backward()
            opt.step()


def predict(model, loader, grad=False):
    torch.set_grad_enabled(grad)
    return [model(batch) for batch in loader]


# Hands its parameter on: it sets the mode from `training` in turn.
def epoch(model, loader, opt, training):
    run_epoch(model, loader, opt, train=training)
