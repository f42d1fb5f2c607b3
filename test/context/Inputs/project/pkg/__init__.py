# Fixture (test/context): re-exports the helper, as packages do.
from .helpers import freeze
