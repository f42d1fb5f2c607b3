"""A package whose modules change grad mode at import time only in ways that are safe."""
