# Fixture (test/context/plain_import.test): an installed package imported whole, its class
# reached as an attribute of the bound name.
import cosmos_guardrail as guard
import cosmos_guardrail


def through_alias():
    guard.CosmosSafetyChecker()


def through_package_name():
    cosmos_guardrail.CosmosSafetyChecker()


def other_attribute():
    return guard.__name__
