# RUN: not %check-file %s | FileCheck %s --implicit-check-not=': GL'
# GL303 and `contextlib.ExitStack`: `stack.enter_context(torch.no_grad())` inside
# `with ExitStack() as stack:` enters no_grad for the rest of that `with` block, and the stack
# leaves it at the end of the block. An evaluator that enters it stays silent; the same
# evaluator without `enter_context` records a graph per batch and is reported.
import contextlib
from contextlib import ExitStack

import torch


# Correct: no_grad entered on the stack before the loop.
def evaluate_on_stack(model, loader):
    model.eval()
    with ExitStack() as stack:
        stack.enter_context(torch.no_grad())
        for x in loader:
            model(x)


# Correct: `contextlib.ExitStack()` spelled in full, among other contexts entered on it.
def evaluate_full_name(model, loader, ctx):
    model.eval()
    with contextlib.ExitStack() as stack:
        stack.enter_context(ctx)
        stack.enter_context(torch.inference_mode())
        for x in loader:
            model(x)


# Wrong: the same evaluator with nothing entered on the stack.
def evaluate_bare_stack(model, loader, ctx):
    model.eval()
    with ExitStack() as stack:
        stack.callback(print, "done")
        for x in loader:
            # CHECK: [[@LINE+1]]:13: GL303 `model` runs in evaluation mode but with grad enabled
            model(x)


# Wrong: no_grad entered on the stack, but the loop runs after the block has closed it.
def evaluate_after_stack(model, loader):
    model.eval()
    with ExitStack() as stack:
        stack.enter_context(torch.no_grad())
    for x in loader:
        # CHECK: [[@LINE+1]]:9: GL303 `model` runs in evaluation mode but with grad enabled
        model(x)
