# RUN: %check-file %s | FileCheck %s --allow-empty --implicit-check-not=': GL'
# GL303 must stay silent when the evaluation loop runs under `torch.inference_mode(True)` (or
# `mode=True`): that is inference mode, with grad disabled, like `torch.inference_mode()`.
import torch


def evaluate(model, loader):
    model.eval()
    with torch.inference_mode(True):
        for x in loader:
            model(x)


def evaluate_keyword(model, loader):
    model.eval()
    with torch.inference_mode(mode=True):
        for x in loader:
            model(x)
