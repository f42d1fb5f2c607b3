# RUN: %check-file %s | FileCheck %s --allow-empty --implicit-check-not=': GL'
# GL301 missing-zero-grad: resetting every parameter's gradient in a loop over
# `model.parameters()` is a reset, like `optimizer.zero_grad()`, and must keep GL301 silent.
import torch


def set_to_none(model, loader, opt):
    for x in loader:
        for p in model.parameters():
            p.grad = None
        loss = model(x)
        loss.backward()
        opt.step()


def zero_in_place(model, loader, opt):
    for x in loader:
        loss = model(x)
        loss.backward()
        opt.step()
        for p in model.parameters():
            if p.grad is not None:
                p.grad.zero_()
