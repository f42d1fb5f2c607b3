"""gradlint as a Bazel aspect, in the shape of aspect-build/rules_lint.

Per target, over `py_library`/`py_binary`/`py_test` and `cc_library`/`cc_binary`/`cc_test`,
the aspect declares actions that run gradlint on the target's own sources only:

  summary   `<name>.gradlint.summary`: what callers in other targets need to know about this
            target's functions (`gradlint summarize`). It is computed from the target's sources
            and the summaries of its dependencies, never from their sources, and it is
            deterministic, so an edit that keeps the facts (a comment, a body change) gives the
            same bytes and Bazel does not re-run the dependents.
  human     `<name>.gradlint.out` and `<name>.gradlint.exit_code` (output group
            `rules_lint_human`)
  machine   `<name>.gradlint.sarif` (output group `rules_lint_machine`)
  patch     `<name>.gradlint.patch`, the diff of the safe fixes (output group
            `rules_lint_patch`)

Bazel builds an output group only when it is asked for, so the reports cost nothing unless
requested. See docs/integrations/bazel.md.
"""

GradlintInfo = provider(
    doc = "The gradlint summary files of a target and of everything it depends on.",
    fields = {
        "summaries": "depset of File: summary files of the target and its transitive deps",
    },
)

_PY_RULES = ["py_library", "py_binary", "py_test"]
_CC_RULES = ["cc_library", "cc_binary", "cc_test"]
_PY_EXTENSIONS = ["py", "pyi"]
_CC_EXTENSIONS = ["c", "cc", "cpp", "cxx", "cu", "h", "hh", "hpp", "hxx", "tpp", "ipp", "inl", "cuh"]
_CC_TRANSLATION_UNITS = ["c", "cc", "cpp", "cxx", "cu"]

def _source_files(rule_attr, attr_names, extensions):
    files = []
    for name in attr_names:
        for src in getattr(rule_attr, name, []):
            for f in src.files.to_list():
                # Generated sources belong to the rule that made them, not to this target.
                if f.is_source and f.extension in extensions:
                    files.append(f)
    return files

def _dependency_summaries(rule_attr):
    return [
        dep[GradlintInfo].summaries
        for dep in getattr(rule_attr, "deps", [])
        if GradlintInfo in dep
    ]

def _shell_quote(s):
    return "'" + s.replace("'", "'\\''") + "'"

def _context_args(ctx, summaries):
    # --no-context: the action sees only its declared inputs (sources and summaries); reading
    # other files of the workspace would make the result depend on undeclared inputs.
    # `--summaries=FILE`, one file each: the option takes several values, and the `=` form keeps
    # it from taking the source paths that follow.
    args = ["--no-context"]
    if ctx.file._config:
        args.append("--config=" + ctx.file._config.path)
    for summary in summaries:
        args.append("--summaries=" + summary.path)
    return args

def _cc_flags(target):
    if CcInfo not in target:
        return []
    context = target[CcInfo].compilation_context
    flags = ["-xc++", "-std=c++17"]
    flags += ["-D" + d for d in context.defines.to_list()]
    flags += ["-I" + d for d in context.includes.to_list()]
    flags += ["-iquote" + d for d in context.quote_includes.to_list()]
    flags += ["-isystem" + d for d in context.system_includes.to_list()]
    return flags

def _report_action(run, output_format, suffix, mnemonic, extra = [], exit_code = False):
    """One `gradlint check` of the target's sources, its output redirected to a report."""
    ctx = run.ctx
    report = ctx.actions.declare_file(run.target.label.name + suffix)
    outs = [report]
    command = " ".join(
        [_shell_quote(run.gradlint.path), "check", "--output-format", output_format] +
        [_shell_quote(a) for a in extra + run.args],
    ) + " >" + _shell_quote(report.path)
    if exit_code:
        code = ctx.actions.declare_file(run.target.label.name + ".gradlint.exit_code")
        outs.append(code)

        # Findings are data, not a failed build: the exit code file carries them, and
        # gradlint_test turns them into a failure. Exit 2 (usage or I/O error) fails the
        # action, with gradlint's message.
        command += "; status=$?; [ $status -le 1 ] || exit $status; echo $status >" + \
                   _shell_quote(code.path)
    else:
        command += "; status=$?; [ $status -le 1 ] || exit $status; exit 0"
    ctx.actions.run_shell(
        command = command,
        inputs = run.inputs,
        outputs = outs,
        tools = [run.gradlint],
        mnemonic = mnemonic,
        progress_message = "Checking %s with gradlint (%s)" % (run.target.label, output_format),
    )
    return outs

def _gradlint_aspect_impl(target, ctx):
    kind = ctx.rule.kind
    dependency_summaries = _dependency_summaries(ctx.rule.attr)
    if kind in _PY_RULES:
        srcs = _source_files(ctx.rule.attr, ["srcs"], _PY_EXTENSIONS)
        headers = []
        compiler_flags = []
    elif kind in _CC_RULES:
        all_cc = _source_files(ctx.rule.attr, ["srcs", "hdrs"], _CC_EXTENSIONS)
        srcs = [f for f in all_cc if f.extension in _CC_TRANSLATION_UNITS]
        headers = [f for f in all_cc if f.extension not in _CC_TRANSLATION_UNITS]
        if CcInfo in target:
            headers = target[CcInfo].compilation_context.headers.to_list()
        compiler_flags = _cc_flags(target)
    else:
        # Not a target gradlint reads (a filegroup, a genrule...): pass its deps' summaries on.
        return [GradlintInfo(summaries = depset(transitive = dependency_summaries))]

    if not srcs:
        return [GradlintInfo(summaries = depset(transitive = dependency_summaries))]

    transitive = depset(transitive = dependency_summaries)
    summary_inputs = transitive.to_list()
    config_inputs = [ctx.file._config] if ctx.file._config else []
    inputs = depset(srcs + headers + config_inputs, transitive = [transitive])
    context = _context_args(ctx, summary_inputs)

    # --no-cache: Bazel's action cache is the cache. The sources are named on purpose, so no
    # exclude or .gitignore applies.
    check_args = context + ["--no-cache", "--no-respect-gitignore"]
    src_paths = [f.path for f in srcs]
    after_paths = ["--"] + compiler_flags if compiler_flags else []
    gradlint = ctx.executable._gradlint

    own_summary = []
    if kind in _PY_RULES:
        summary = ctx.actions.declare_file(target.label.name + ".gradlint.summary")
        ctx.actions.run(
            executable = gradlint,
            arguments = ["summarize", "-o", summary.path] + context + src_paths,
            inputs = inputs,
            outputs = [summary],
            mnemonic = "GradlintSummarize",
            progress_message = "Summarising %s with gradlint" % target.label,
        )
        own_summary = [summary]

    run = struct(
        ctx = ctx,
        target = target,
        gradlint = gradlint,
        inputs = inputs,
        args = check_args + src_paths + after_paths,
    )
    human = _report_action(run, "full", ".gradlint.out", "GradlintCheck", exit_code = True)
    machine = _report_action(run, "sarif", ".gradlint.sarif", "GradlintSarif")
    patch = _report_action(run, "full", ".gradlint.patch", "GradlintPatch", extra = ["--diff"])

    return [
        GradlintInfo(summaries = depset(own_summary, transitive = dependency_summaries)),
        OutputGroupInfo(
            rules_lint_human = depset(human),
            rules_lint_machine = depset(machine),
            rules_lint_patch = depset(patch),
            gradlint_summary = depset(own_summary),
        ),
    ]

def gradlint_aspect(binary, config = None):
    """Makes the gradlint aspect. Call it in a .bzl file and use the result with --aspects.

    Args:
      binary: label of the gradlint executable (see gradlint_binary in repositories.bzl).
      config: label of a `pyproject.toml` ([tool.gradlint]) or `gradlint.toml` for every target.

    Returns:
      The aspect.
    """
    return aspect(
        implementation = _gradlint_aspect_impl,
        attr_aspects = ["deps"],
        attrs = {
            "_gradlint": attr.label(
                default = binary,
                executable = True,
                cfg = "exec",
                allow_single_file = True,
            ),
            "_config": attr.label(default = config, allow_single_file = True),
        },
        provides = [GradlintInfo],
    )

def _gradlint_test_impl(ctx):
    reports = []
    for target in ctx.attr.srcs:
        groups = target[OutputGroupInfo]
        reports += groups.rules_lint_human.to_list()
    pairs = []
    for f in reports:
        if f.basename.endswith(".gradlint.exit_code"):
            report = f.short_path[:-len(".exit_code")] + ".out"
            pairs.append((f.short_path, report))
    lines = ["#!/usr/bin/env bash", "status=0"]
    for code, report in pairs:
        lines.append(
            "if [ \"$(cat %s)\" != 0 ]; then cat %s; status=1; fi" %
            (_shell_quote(code), _shell_quote(report)),
        )
    lines.append("exit $status")
    script = ctx.actions.declare_file(ctx.label.name + ".sh")
    ctx.actions.write(script, "\n".join(lines) + "\n", is_executable = True)
    return [DefaultInfo(executable = script, runfiles = ctx.runfiles(files = reports))]

def make_gradlint_test(aspect):
    """Makes a test rule that fails when gradlint reports findings in its `srcs` targets.

    Args:
      aspect: the result of gradlint_aspect.

    Returns:
      The test rule: `gradlint_test(name = "...", srcs = ["//pkg:target", ...])`.
    """
    return rule(
        implementation = _gradlint_test_impl,
        attrs = {"srcs": attr.label_list(aspects = [aspect], mandatory = True)},
        test = True,
    )
