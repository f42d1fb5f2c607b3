# Fixture (test/context): a package whose metadata requires nothing, though it imports torch.
from .helpers import freeze
