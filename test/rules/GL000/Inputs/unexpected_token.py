# An unexpected token: the second `=`.
import torch


def scale(batch):
    with torch.enable_grad():
        # CHECK: [[@LINE+1]]:18: GL000 invalid syntax: unexpected `=`
        factor = = 2
        return batch * factor
