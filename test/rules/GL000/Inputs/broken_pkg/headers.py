import torch


# CHECK: headers.py:[[@LINE+1]]:1: GL000 invalid syntax: unexpected `def`
def swallowed[(model):
    torch.set_grad_enabled(False)
    return model


def recovered(model, *, **):
    torch.set_grad_enabled(False)
    return model


def stray_token(model):  = 3
    torch.set_grad_enabled(False)
    return model


@decorate(
def decorated(model):
    torch.set_grad_enabled(False)


class Broken(:
    torch.set_grad_enabled(False)


class Model:
    def forward(self, x) -> :
        torch.set_grad_enabled(False)
        return x


# The definitions that parse are still analysed.
def leaks(model):
    # CHECK: headers.py:[[@LINE+1]]:5: GL101 `torch.set_grad_enabled(False)` disables grad mode and `leaks` returns with it still disabled
    torch.set_grad_enabled(False)
    return model
