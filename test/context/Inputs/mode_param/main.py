# Fixture (test/context/mode_parameter.test): callers of trainer.loops in another file.
from trainer.loops import epoch, predict, run_epoch


def evaluate(model, loader):
    run_epoch(model, loader, train=False)
    return len(loader)


def inference(model, loader):
    return predict(model, loader)


def validate(model, loader):
    epoch(model, loader, None, False)


def fit(model, loader, opt):
    run_epoch(model, loader, train=False)
    run_epoch(model, loader, opt, train=True)


def fit_through(model, loader, opt):
    epoch(model, loader, opt, False)
    epoch(model, loader, opt, True)


def predict_with_grad(model, loader):
    return predict(model, loader, grad=True)
