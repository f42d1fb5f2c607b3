from cosmos_guardrail import CosmosSafetyChecker

from pkg import util
from pkg.helpers import freeze


def build(model):
    util.prepare(model)
    return model


def guarded():
    return CosmosSafetyChecker()


def frozen():
    freeze()
