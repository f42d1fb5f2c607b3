# `$` is not a Python token; the error is at the `$`, not at the valid operand before it.
import torch


def total(batch):
    with torch.enable_grad():
        # CHECK: [[@LINE+1]]:19: GL000 invalid syntax: unexpected `$`
        value = 3 $ 4
        return batch * value
