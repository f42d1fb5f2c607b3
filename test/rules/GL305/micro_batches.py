# RUN: not %check-file %s | FileCheck %s --implicit-check-not=': GL'
# GL305 and the micro-batch loop of one optimizer step. A loop whose body calls backward() runs
# at least once: a step with no data is no step. Without that, the LLM-trainer shape below has a
# path that skips the step (the gradient norm is not finite), resets, and then steps after a
# micro-batch loop that ran zero times: a reset "between" a backward and a step that no run takes.
import math

import torch


def train_skipping_non_finite(model, steps, optimizer):
    for step in steps:
        for micro_batch in step:
            loss = model(micro_batch)
            loss.backward()
        grad_norm = torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        if not math.isfinite(grad_norm):
            print("skipping the update: the gradient norm is not finite")
        else:
            optimizer.step()
        optimizer.zero_grad()


# The same loop with the reset inside it: the last micro-batch's gradients are wiped before the
# step, whatever the number of micro-batches.
def train_reset_per_micro_batch(model, steps, optimizer):
    for step in steps:
        for micro_batch in step:
            loss = model(micro_batch)
            loss.backward()
            optimizer.zero_grad()
# CHECK: micro_batches.py:[[@LINE-1]]:13: GL305
        optimizer.step()
