"""The workspace's linters: gradlint as an aspect, and a test rule that fails on findings."""

load("@gradlint//:defs.bzl", "gradlint_aspect", "make_gradlint_test")

gradlint = gradlint_aspect(
    binary = "@gradlint_bin//:gradlint",
    # Label(): resolved in this workspace, not in @gradlint where the aspect is defined.
    config = Label("//:gradlint.toml"),
)

gradlint_test = make_gradlint_test(aspect = gradlint)
