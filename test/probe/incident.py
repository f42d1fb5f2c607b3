# The incident: a script builds a third-party pipeline (whose constructor disables grad mode and
# never restores it), then trains its own model. No line of this script is wrong; the probe
# names the package's line and the backward() that ran with grad disabled.
# REQUIRES: probe
# RUN: %expect-exit 1 %gradlint probe run -- %torch-python %s > %t.out 2>&1
# RUN: FileCheck %s < %t.out
# RUN: FileCheck %s --check-prefix=OUTPUT < %t.out
# RUN: FileCheck %S/Inputs/site/fakediff/pipeline.py < %t.out
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "Inputs", "site"))

import torch
from fakediff.pipeline import Pipeline


def train(model, steps):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for _ in range(steps):
        loss = model(torch.randn(8, 4)).sum()
        try:
            # CHECK: = backward() ran with grad disabled at {{.*}}incident.py:[[@LINE+1]] in `train`
            loss.backward()
        except RuntimeError as error:
            print("training failed:", str(error).splitlines()[0])
            return
        optimizer.step()
        optimizer.zero_grad()


pipeline = Pipeline()
train(torch.nn.Linear(4, 1), steps=3)
# OUTPUT: training failed: element 0 of tensors does not require grad
# CHECK: gradlint probe: 1 grad-mode leak
