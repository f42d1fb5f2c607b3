# Fixture (test/context/cache/context_summaries.test): a package whose modules are context.
