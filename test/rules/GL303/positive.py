# RUN: not %check-file %s | FileCheck %s --implicit-check-not=': GL'
# GL303 eval-without-no-grad: a function calls `model.eval()` and then calls the model in a loop
# with grad enabled, and no backward() can follow. eval() does not turn autograd off, so each call
# records a graph. One finding per function, at the first such call; every finding is checked on
# the line right below its CHECK, and anything not listed here fails the test.
import torch


# The classic evaluation loop without `torch.no_grad()`.
def evaluate(model, loader):
    model.eval()
    correct = 0
    for x, y in loader:
        # CHECK: [[@LINE+1]]:15: GL303 `model` runs in evaluation mode but with grad enabled: `eval()` only changes dropout and batch-norm, so each call still records an autograd graph and holds its activations in memory
        out = model(x)
        correct += (out.argmax(1) == y).sum().item()
    return correct


# Nested loops (epochs x batches) and `model.forward(x)`.
def evaluate_all(model, loaders):
    model.eval()
    for loader in loaders:
        for x in loader:
            # CHECK: [[@LINE+1]]:19: GL303 `model` runs in evaluation mode but with grad enabled
            print(model.forward(x))


# A model stored on self.
class Evaluator:
    def run(self, loader):
        self.model.eval()
        results = []
        for x in loader:
            # CHECK: [[@LINE+1]]:28: GL303 `self.model` runs in evaluation mode but with grad enabled
            results.append(self.model(x))
        return results


# A module evaluating itself: `self.eval()` then `self(x)`.
class Net(torch.nn.Module):
    def evaluate(self, loader):
        self.eval()
        for x in loader:
            # CHECK: [[@LINE+1]]:13: GL303 `self` runs in evaluation mode but with grad enabled
            self(x)


# `.train(False)` is `.eval()`.
def train_false(model, loader):
    model.train(False)
    outputs = []
    for x in loader:
        # CHECK: [[@LINE+1]]:24: GL303 `model` runs in evaluation mode but with grad enabled
        outputs.append(model(x))
    return outputs


# A `while` loop.
def drain(model, queue):
    model.eval()
    while not queue.empty():
        # CHECK: [[@LINE+1]]:9: GL303 `model` runs in evaluation mode but with grad enabled
        model(queue.get())


# One finding per function, at the first call.
def two_loops(model, loader):
    model.eval()
    for x in loader:
        # CHECK: [[@LINE+1]]:9: GL303 `model` runs in evaluation mode but with grad enabled
        model(x)
    for x in loader:
        model(x)


# A no_grad warm-up call does not cover the loop after it.
def warm_up_then_loop(model, loader, example):
    model.eval()
    with torch.no_grad():
        model(example)
    for x in loader:
        # CHECK: [[@LINE+1]]:9: GL303 `model` runs in evaluation mode but with grad enabled
        model(x)


# `model.train()` before `model.eval()` does not count.
def train_then_eval(model, loader):
    model.train()
    model.eval()
    for x in loader:
        # CHECK: [[@LINE+1]]:9: GL303 `model` runs in evaluation mode but with grad enabled
        model(x)


# Inside a `try`, with the model put back in training mode in `finally`.
def evaluate_safely(model, loader):
    model.eval()
    try:
        for x in loader:
            # CHECK: [[@LINE+1]]:13: GL303 `model` runs in evaluation mode but with grad enabled
            model(x)
    finally:
        model.train()


# A function with one caller inside `torch.no_grad()` and one outside it is still reported.
def score(model, loader):
    model.eval()
    for x in loader:
        # CHECK: [[@LINE+1]]:9: GL303 `model` runs in evaluation mode but with grad enabled
        model(x)


def report(model, loader):
    with torch.no_grad():
        score(model, loader)
    score(model, loader)


# Trains first, then evaluates once for good: no backward() follows the eval(), so the
# evaluation loop is not a training loop's side evaluation.
def train_then_test(model, train_loader, test_loader, opt):
    for x in train_loader:
        opt.zero_grad()
        model(x).mean().backward()
        opt.step()
    model.eval()
    for x in test_loader:
        # CHECK: [[@LINE+1]]:9: GL303 `model` runs in evaluation mode but with grad enabled
        model(x)


# A training loop that evaluates on the side: backward() runs again after eval() (the next
# epoch), but on the training batches' outputs; the validation loop's graphs are waste.
# `out` and `loss` name both loops' values.
def train_and_validate(model, train_loader, val_loader, opt, loss_fn, epochs):
    for epoch in range(epochs):
        model.train()
        for x, y in train_loader:
            opt.zero_grad()
            out = model(x)
            loss = loss_fn(out, y)
            loss.backward()
            opt.step()
        model.eval()
        val_loss = 0.0
        for x, y in val_loader:
            # CHECK: [[@LINE+1]]:19: GL303 `model` runs in evaluation mode but with grad enabled
            out = model(x)
            loss = loss_fn(out, y)
            val_loss += loss.item()


# The same with unnamed training losses.
def train_and_validate_unnamed(model, train_loader, val_loader, opt, epochs):
    for epoch in range(epochs):
        model.train()
        for x in train_loader:
            opt.zero_grad()
            model(x).mean().backward()
            opt.step()
        model.eval()
        for x in val_loader:
            # CHECK: [[@LINE+1]]:13: GL303 `model` runs in evaluation mode but with grad enabled
            model(x)
