# Fixture (test/context): helpers that leave grad mode disabled for their callers.
import torch


def freeze():
    torch.set_grad_enabled(False)


class Evaluator:
    def __init__(self, model):
        self.model = model
        torch.set_grad_enabled(False)
