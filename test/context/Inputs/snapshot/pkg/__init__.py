# Fixture (test/context/cache/snapshot.test): a package whose checked file imports a helper
# module that the test adds later, a context module it edits, and an installed package.
