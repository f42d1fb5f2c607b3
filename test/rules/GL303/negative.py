# RUN: %check-file %s | FileCheck %s --allow-empty --implicit-check-not=': GL'
# GL303 eval-without-no-grad must stay silent below: every evaluation loop runs with grad
# disabled, or the function trains, or the model calls are not in a loop after eval().
import torch


# The loop inside `with torch.no_grad():`, `torch.inference_mode()` or
# `torch.set_grad_enabled(False)`.
def evaluate(model, loader):
    model.eval()
    with torch.no_grad():
        for x in loader:
            model(x)


def evaluate_inference(model, loaders):
    model.eval()
    with torch.inference_mode():
        for loader in loaders:
            for x in loader:
                model.forward(x)


def evaluate_set_grad_enabled(model, loader):
    model.eval()
    with torch.set_grad_enabled(False):
        for x in loader:
            model(x)


# The no_grad block inside the loop body.
def evaluate_per_batch(model, loader):
    model.eval()
    for x in loader:
        with torch.no_grad():
            model(x)


# The function decorated with `@torch.no_grad()` or `@torch.inference_mode()`.
@torch.no_grad()
def evaluate_decorated(model, loader):
    model.eval()
    for x in loader:
        model(x)


@torch.inference_mode()
def evaluate_decorated_inference(model, loader):
    model.eval()
    for x in loader:
        model(x)


# Test-time training: the backward() consumes what the model computes in evaluation mode, so
# the graph the loop records is needed.
def test_time_training(model, loader, opt, entropy):
    model.eval()
    for x in loader:
        out = model(x)
        loss = entropy(out)
        opt.zero_grad()
        loss.backward()
        opt.step()


# The same with the loss of an unnamed value, and through a collection of outputs.
def adapt_unnamed(model, loader, opt):
    model.eval()
    for x in loader:
        opt.zero_grad()
        model(x).logsumexp(1).mean().backward()
        opt.step()


def adapt_collected(model, loader, opt, entropy):
    model.eval()
    outputs = []
    for x in loader:
        out = model(x)
        outputs.append(out)
    total = entropy(outputs)
    total.backward()
    opt.step()


# Back to training mode before the calls.
def back_to_train(model, loader):
    model.eval()
    model.train()
    for x in loader:
        model(x)


# A single call, not in a loop.
def predict(model, x):
    model.eval()
    return model(x)


# Another model is called in the loop.
def distill(student, teacher, loader):
    teacher.eval()
    for x in loader:
        student(x)


# Lightning hooks run under no_grad already.
class LitModel:
    def validation_step(self, batch, batch_idx):
        self.model.eval()
        for x in batch:
            self.model(x)

    def test_step(self, batch, batch_idx):
        self.eval()
        for x in batch:
            self(x)

    def predict_step(self, batch, batch_idx):
        self.model.eval()
        for x in batch:
            self.model(x)


# Every caller in the run calls it inside `with torch.no_grad():` (private or public).
def _score(model, loader):
    model.eval()
    for x in loader:
        model(x)


def score(model, loader):
    model.eval()
    for x in loader:
        model(x)


def report(model, loader):
    with torch.no_grad():
        _score(model, loader)
        score(model, loader)
