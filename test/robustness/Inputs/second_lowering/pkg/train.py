import torch

from pkg.helpers import Frozen, forward


def step(model, x, opt):
    y = forward(model, x)
    y.sum().backward()
    opt.step()


def evaluate(model, x):
    with Frozen():
        return model(x)
