# RUN: not %check-file --select GL201,GL202,GL302 %s | FileCheck %s --implicit-check-not=': GL'
# A negative test: training or differentiating inside a block that asserts an exception
# (`self.assertRaises`, `pytest.raises`, accelerate's `assert_exception`) is expected to fail,
# so it is not training. The same code outside such a block is reported.
import unittest

import pytest
import torch
from accelerate import Accelerator, dispatch_model
from accelerate.test_utils import assert_exception


class RefusesOffloadedModels(unittest.TestCase):
    def test_prepare_refuses(self):
        model = torch.nn.Linear(2, 2)
        dispatch_model(model, device_map={"weight": "cpu", "bias": 0})
        accelerator = Accelerator()
        with self.assertRaises(ValueError):
            accelerator.prepare(model)

    def test_prepare_refuses_with_message(self):
        model = torch.nn.Linear(2, 2)
        dispatch_model(model, device_map={"weight": "cpu", "bias": 0})
        accelerator = Accelerator()
        with assert_exception(ValueError, "You can't train a model that has been loaded"):
            accelerator.prepare_model(model)


def test_backward_without_graph(model, x):
    with torch.no_grad():
        loss = model(x).sum()
    with pytest.raises(RuntimeError, match="does not require grad"):
        loss.backward()


# Twins: the same code with nothing expecting it to fail.
def prepare_offloaded(train_dataloader):
    model = torch.nn.Linear(2, 2)
    dispatch_model(model, device_map={"weight": "cpu", "bias": 0})
    accelerator = Accelerator()
    # CHECK: [[@LINE+1]]:{{[0-9]+}}: GL201 `model` has offload hooks
    accelerator.prepare(model, train_dataloader)


def backward_without_graph(model, x):
    with torch.no_grad():
        loss = model(x).sum()
    # CHECK: [[@LINE+1]]:5: GL302 `loss` was computed with grad disabled
    loss.backward()


# An exception handled by other means is not an assertion: still reported.
def prepare_in_try(train_dataloader):
    model = torch.nn.Linear(2, 2)
    dispatch_model(model, device_map={"weight": "cpu", "bias": 0})
    accelerator = Accelerator()
    try:
        # CHECK: [[@LINE+1]]:{{[0-9]+}}: GL201 `model` has offload hooks
        accelerator.prepare(model, train_dataloader)
    except ValueError:
        pass
