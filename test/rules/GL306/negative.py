# RUN: %check-file --select GL306 %s | FileCheck %s --allow-empty --implicit-check-not=': GL'
# GL306 train-in-eval-mode stays silent on each function below: the twins of positive.py that
# switch back to training mode, and the shapes that are no evaluation pass or no training.
import torch
import torch.nn.functional as F


def train(dataloader, model, loss_fn, optimizer):
    model.train()
    for X, y in dataloader:
        loss = loss_fn(model(X), y)
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()


def test(dataloader, model, loss_fn):
    model.eval()
    with torch.no_grad():
        for X, y in dataloader:
            model(X)


# The quickstart as fixed: train() calls model.train() itself.
def quickstart_fixed(model, train_dataloader, test_dataloader, loss_fn, optimizer, epochs):
    for t in range(epochs):
        train(train_dataloader, model, loss_fn, optimizer)
        test(test_dataloader, model, loss_fn)


def train_in_caller_mode(dataloader, model, optimizer):
    for X, y in dataloader:
        loss = model(X).sum()
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()


# The caller switches back before each epoch.
def caller_switches_back(model, loader, val_loader, opt):
    for epoch in range(10):
        model.train()
        train_in_caller_mode(loader, model, opt)
        test(val_loader, model, None)


# One function, `model.train()` at the top of each epoch.
def fit_fixed(model, loader, val_loader, opt):
    for epoch in range(10):
        model.train()
        for x, y in loader:
            loss = F.mse_loss(model(x), y)
            opt.zero_grad()
            loss.backward()
            opt.step()
        model.eval()
        with torch.no_grad():
            for x, y in val_loader:
                model(x)


# A deliberate freeze: only the backbone's batch-norm, before the loop; `model` trains.
def frozen_backbone(model, loader, opt):
    model.train()
    model.backbone.eval()
    for x, y in loader:
        loss = model(x).sum()
        opt.zero_grad()
        loss.backward()
        opt.step()


# A frozen feature extractor in eval mode with no evaluation pass, feeding a trained head.
def frozen_extractor(extractor, head, loader, opt):
    extractor.eval()
    for x, y in loader:
        with torch.no_grad():
            features = extractor(x)
        loss = F.cross_entropy(head(features), y)
        opt.zero_grad()
        loss.backward()
        opt.step()


# Gradients with respect to the input (an adversarial example): backward, but no step.
def adversarial(model, x, y, val_loader):
    model.eval()
    with torch.no_grad():
        for v in val_loader:
            model(v)
    x.requires_grad_(True)
    loss = F.cross_entropy(model(x), y)
    loss.backward()
    return x.grad.sign()


# Another model is evaluated than the one trained.
def teacher_student(teacher, student, loader, opt):
    teacher.eval()
    for x, y in loader:
        with torch.no_grad():
            target = teacher(x)
        loss = F.mse_loss(student(x), target)
        opt.zero_grad()
        loss.backward()
        opt.step()


# A new model after the evaluation: the name is rebound.
def rebuilt(build, loader, val_loader, opt):
    model = build()
    test(val_loader, model, None)
    model = build()
    for x, y in loader:
        loss = model(x).sum()
        opt.zero_grad()
        loss.backward()
        opt.step()


class Trainer:
    def validate(self):
        self.model.eval()
        with torch.no_grad():
            for x in self.val_loader:
                self.model(x)

    def train_epoch(self):
        self.model.train()
        for x, y in self.loader:
            loss = F.mse_loss(self.model(x), y)
            self.opt.zero_grad()
            loss.backward()
            self.opt.step()

    def fit(self):
        for epoch in range(10):
            self.train_epoch()
            self.validate()
