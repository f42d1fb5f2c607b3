# RUN: not %check-file %s | FileCheck %s --implicit-check-not=': GL'
# GL303 eval-without-no-grad: a comprehension is a loop. Calling the model in a list, dict or
# set comprehension or a generator expression after `model.eval()`, with grad enabled, records a
# graph per call like a `for` statement does.
import torch


def evaluate_list(model, loader):
    model.eval()
    # CHECK: [[@LINE+1]]:13: GL303 `model` runs in evaluation mode but with grad enabled
    return [model(x) for x in loader]


def evaluate_dict(model, batches):
    model.eval()
    # CHECK: [[@LINE+1]]:19: GL303 `model` runs in evaluation mode but with grad enabled
    return {name: model(x) for name, x in batches.items()}


def evaluate_generator(model, loader):
    model.eval()
    # CHECK: [[@LINE+1]]:16: GL303 `model` runs in evaluation mode but with grad enabled
    return sum(model(x).sum() for x in loader)


def evaluate_no_grad(model, loader):
    model.eval()
    with torch.no_grad():
        return [model(x) for x in loader]
