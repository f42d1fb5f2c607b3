# Fixture (test/context/plain_import.test): the package imported whole, but only a name that
# no module defines is read of it; `unguard.CosmosSafetyChecker` is another object.
import cosmos_guardrail as guard


def other_object(unguard):
    unguard.CosmosSafetyChecker()
    return guard.VERSION

