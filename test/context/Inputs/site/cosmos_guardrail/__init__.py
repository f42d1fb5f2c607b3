# Fixture (test/context): an installed package shaped like the guardrail of the incident: the
# class is defined in a submodule and re-exported here.
from .checker import CosmosSafetyChecker

__all__ = ["CosmosSafetyChecker"]
