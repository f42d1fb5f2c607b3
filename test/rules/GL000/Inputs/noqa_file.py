# gradlint: noqa
# A file-level suppression does not hide a syntax error either.
import torch


def scale(batch):
    with torch.enable_grad():
        # CHECK: [[@LINE+1]]:18: GL000 invalid syntax: unexpected `=`
        factor = = 2  # noqa: GL000
        return batch * factor
