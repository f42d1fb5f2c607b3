# RUN: not %check-file --select GL306 %s | FileCheck %s --implicit-check-not=': GL'
# GL306 train-in-eval-mode: an evaluation pass leaves a module in evaluation mode and the module
# is trained again with no `train()` in between. Every finding is checked on the line right
# below its CHECK; anything not listed fails the test.
import torch
import torch.nn.functional as F


# The PyTorch quickstart's shape (pytorch/tutorials#1624): `test()` evaluates, `train()` never
# calls `model.train()`, and the epoch loop alternates them.
def train(dataloader, model, loss_fn, optimizer):
    for X, y in dataloader:
        pred = model(X)
        loss = loss_fn(pred, y)
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()


def test(dataloader, model, loss_fn):
    model.eval()
    with torch.no_grad():
        for X, y in dataloader:
            pred = model(X)


def quickstart(model, train_dataloader, test_dataloader, loss_fn, optimizer, epochs):
    for t in range(epochs):
        # CHECK: [[@LINE+1]]:9: GL306 `model` is trained while still in evaluation mode: dropout stays off and batch-norm uses its running statistics instead of the batch's, with no error
        train(train_dataloader, model, loss_fn, optimizer)
        test(test_dataloader, model, loss_fn)


# One function: each epoch trains, then validates; the second epoch trains in eval mode.
def fit(model, loader, val_loader, opt):
    for epoch in range(10):
        for x, y in loader:
            # CHECK: [[@LINE+1]]:19: GL306 `model` is trained while still in evaluation mode
            out = model(x)
            loss = F.mse_loss(out, y)
            opt.zero_grad()
            loss.backward()
            opt.step()
        model.eval()
        with torch.no_grad():
            for x, y in val_loader:
                model(x)


# `train(False)` is `eval()`; the loss computed in one expression.
def fit_inline(model, loader, val_loader, opt):
    for epoch in range(10):
        for x, y in loader:
            # CHECK: [[@LINE+1]]:36: GL306 `model` is trained while still in evaluation mode
            loss = F.cross_entropy(model(x), y)
            opt.zero_grad()
            loss.backward()
            opt.step()
        model.train(False)
        with torch.no_grad():
            for x, y in val_loader:
                model(x)


# An evaluation helper called with grad disabled counts as the evaluation pass.
def accuracy(model, loader):
    return sum((model(x).argmax(1) == y).sum().item() for x, y in loader)


def fit_metric_helper(model, loader, val_loader, opt):
    for epoch in range(10):
        for x, y in loader:
            # CHECK: [[@LINE+1]]:20: GL306 `model` is trained while still in evaluation mode
            loss = model(x).sum()
            opt.zero_grad()
            loss.backward()
            opt.step()
        model.eval()
        with torch.no_grad():
            accuracy(model, val_loader)


# Methods: `self.validate()` leaves `self.model` in eval mode, `self.train_epoch()` trains it.
class Trainer:
    def validate(self):
        self.model.eval()
        with torch.no_grad():
            for x in self.val_loader:
                self.model(x)

    def train_epoch(self):
        for x, y in self.loader:
            out = self.model(x)
            loss = F.mse_loss(out, y)
            self.opt.zero_grad()
            loss.backward()
            self.opt.step()

    def fit(self):
        for epoch in range(10):
            # CHECK: [[@LINE+1]]:13: GL306 `self.model` is trained while still in evaluation mode
            self.train_epoch()
            self.validate()


# Validation first, then training: wrong from the first epoch.
def validate_then_train(model, loader, val_loader, opt):
    test(val_loader, model, None)
    # CHECK: [[@LINE+1]]:5: GL306 `model` is trained while still in evaluation mode
    train(loader, model, F.mse_loss, opt)
