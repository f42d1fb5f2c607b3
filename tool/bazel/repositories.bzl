"""Repository rules for using gradlint from a Bazel workspace."""

def _gradlint_binary_impl(repository_ctx):
    path = repository_ctx.attr.path or repository_ctx.os.environ.get("GRADLINT", "")
    if not path:
        found = repository_ctx.which("gradlint")
        if not found:
            fail("gradlint_binary: no `gradlint` on PATH; install it, set path = \"...\", " +
                 "or export GRADLINT=/path/to/gradlint")
        path = str(found)
    binary = repository_ctx.path(path)
    if not binary.exists:
        fail("gradlint_binary: %s does not exist" % path)

    # A link, not a copy: the installed gradlint finds its modules (the C++ checker) beside
    # the real file.
    repository_ctx.symlink(binary, "gradlint")
    repository_ctx.file("BUILD.bazel", 'exports_files(["gradlint"])\n')
    repository_ctx.file("WORKSPACE", 'workspace(name = "%s")\n' % repository_ctx.name)

gradlint_binary = repository_rule(
    implementation = _gradlint_binary_impl,
    doc = "The gradlint executable of this machine (path, else $GRADLINT, else PATH) as " +
          "`@<name>//:gradlint`.",
    attrs = {"path": attr.string(doc = "absolute path of the gradlint executable")},
    environ = ["GRADLINT", "PATH"],
    local = True,
)
