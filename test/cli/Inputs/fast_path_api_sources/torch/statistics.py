import torch


@torch.no_grad()
def average(values):
    return sum(values) / len(values)


def scaled(values, factor):
    with torch.no_grad():
        return [value * factor for value in values]


def with_grad(values):
    with torch.enable_grad():
        return [value * 2 for value in values]
