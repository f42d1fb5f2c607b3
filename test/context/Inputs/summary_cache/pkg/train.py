# Fixture: the checked file; every helper it calls lives in a context module.
from pkg import callbacks
from pkg.cycle_a import pause
from pkg.helpers import freeze
from pkg.unrelated import switch_off


def step_freeze(model):
    freeze()
    return model


def step_switch_off(model):
    switch_off()
    return model


def step_pause(model):
    pause()
    return model


def pause_later(model):
    return callbacks.pause_quietly(model)
