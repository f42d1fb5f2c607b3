"""A small library with the grad-mode bugs gradlint exists to catch."""
