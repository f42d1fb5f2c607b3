# Fixture (test/context): calls the helpers of pkg/helpers.py, which the check may not name.
from pkg import freeze as freeze_again
from pkg.helpers import Evaluator, freeze

from . import helpers


def train_step(model):
    freeze()
    return model


def build_evaluator(model):
    evaluator = Evaluator(model)
    return evaluator


def through_module(model):
    helpers.freeze()
    return model


def through_reexport(model):
    freeze_again()
    return model


def balanced(model):
    freeze()
    import torch

    torch.set_grad_enabled(True)
    return model
