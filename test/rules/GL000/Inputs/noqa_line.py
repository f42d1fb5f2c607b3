# `# noqa` (blanket or naming GL000) does not hide a syntax error.
import torch


def scale(batch):
    with torch.enable_grad():
        # CHECK: [[@LINE+1]]:18: GL000 invalid syntax: unexpected `=`
        factor = = 2  # noqa
        return batch * factor
