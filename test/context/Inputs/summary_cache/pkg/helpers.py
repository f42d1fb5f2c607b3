# Fixture: a helper that leaves grad mode disabled through pkg/base.py.
from pkg.base import disable


def freeze():
    disable()
