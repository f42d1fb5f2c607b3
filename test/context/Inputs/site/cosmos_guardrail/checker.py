# Fixture (test/context): its constructor disables grad mode and never restores it.
import torch

from .models import load_guard_models


class CosmosSafetyChecker:
    def __init__(self, device="cpu"):
        self.device = device
        torch.set_grad_enabled(False)
        self.models = load_guard_models(device)

    def check(self, frames):
        return all(model(frames) for model in self.models)
