from cosmos_guardrail import CosmosSafetyChecker


def build():
    return CosmosSafetyChecker()
