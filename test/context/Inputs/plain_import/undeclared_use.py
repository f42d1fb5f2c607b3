# Fixture (test/context/plain_import.test): the distribution of `undeclared` requires nothing
# (not torch): imported whole, it is asked for nothing, so its `freeze` is not followed
# (docs/context.md: metadata that leaves torch out).
import undeclared


def undeclared_whole():
    undeclared.freeze()
