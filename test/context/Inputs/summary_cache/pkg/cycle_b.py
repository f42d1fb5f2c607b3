# Fixture: the other half of the import cycle.
import torch

from pkg import cycle_a


def stop():
    torch.set_grad_enabled(False)


def again():
    cycle_a.pause()
