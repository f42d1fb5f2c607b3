# Fixture: one half of an import cycle (pkg/cycle_b.py imports this module back).
from pkg import cycle_b


def pause():
    cycle_b.stop()
