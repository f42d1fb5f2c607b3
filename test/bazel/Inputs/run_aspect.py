"""Drive Debian's Bazel (bazel-bootstrap 4.2.3) offline over the example workspace with the
gradlint aspect, and print what FileCheck checks.

    run_aspect.py GRADLINT_BINARY SOURCE_ROOT WORK_FOLDER

Copies SOURCE_ROOT/tool/bazel and SOURCE_ROOT/examples/bazel under WORK_FOLDER (same relative
layout, so the example's WORKSPACE finds the rules at ../../tool/bazel), with Bazel's output
root inside WORK_FOLDER too. Then:
  1. the docs' snippets are the example's files (docs/integrations/bazel.md);
  2. cold build with the aspect: the caller target's report (found through the helper target's
     summary), the executed actions by mnemonic and target;
  3. `bazel test` of the lint test fails and shows the finding;
  4. an edit of the helper that keeps its facts (a comment's text): the helper's summary is
     byte-identical and only the helper's actions run again;
  5. an edit that changes the facts (the toggle is gone): the dependents run again and the
     caller's finding is gone;
  6. `bazel clean`, then the same build with --disk_cache: every action is a cache hit.
"""
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import time

HELPERS = "lib/helpers.py"
TIMINGS = []  # (step, wall seconds of its `bazel build`), printed last for the record
SUMMARY = "bazel-bin/lib/helpers.gradlint.summary"


def run(cmd, cwd, env, check=True, step=None):
    started = time.monotonic()
    proc = subprocess.run(cmd, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          text=True)
    if check and proc.returncode != 0:
        print(f"command failed ({proc.returncode}): {' '.join(cmd)}\n{proc.stdout}")
        sys.exit(1)
    if step:
        TIMINGS.append((step, time.monotonic() - started))
    return proc


def executed_actions(log_path):
    """(mnemonic, target, cache hit) of each spawn Bazel ran (or fetched from a cache)."""
    text = open(log_path, encoding="utf-8").read()
    decoder = json.JSONDecoder()
    actions, pos = [], 0
    while True:
        while pos < len(text) and text[pos].isspace():
            pos += 1
        if pos >= len(text):
            break
        entry, pos = decoder.raw_decode(text, pos)
        outputs = [o.get("path", "") for o in entry.get("actualOutputs", [])] or \
            entry.get("listedOutputs", [])
        target = "?"
        for out in outputs:
            match = re.search(r"bin/(.+?)\.gradlint\.", out if isinstance(out, str) else "")
            if match:
                target = "//" + match.group(1).replace("/", ":", 1) if "/" in match.group(1) \
                    else "//:" + match.group(1)
                break
        actions.append((entry.get("mnemonic", "?"), target, bool(entry.get("remoteCacheHit"))))
    return sorted(actions)


def print_actions(title, actions):
    gradlint = [a for a in actions if a[0].startswith("Gradlint")]
    print(f"== {title}: {len(gradlint)} gradlint actions, "
          f"{sum(1 for a in gradlint if a[2])} cache hits")
    for mnemonic, target, hit in gradlint:
        print(f"  {mnemonic} {target}{' (cache hit)' if hit else ''}")


def doc_snippets(doc_path):
    """The code blocks of the doc that follow an `<!-- example: PATH -->` marker."""
    text = open(doc_path, encoding="utf-8").read()
    return re.findall(r"<!-- example: (\S+) -->\n```[a-z]*\n(.*?)```", text, re.S)


def digest(path):
    return hashlib.sha256(open(path, "rb").read()).hexdigest()


def main() -> int:
    gradlint, source_root, work = (os.path.abspath(arg) for arg in sys.argv[1:4])
    if shutil.which("bazel") is None:
        print("run_aspect: error: `bazel` is not installed (Debian package bazel-bootstrap)")
        return 1
    if os.path.exists(work):
        subprocess.run(["chmod", "-R", "u+w", work], check=False)
        shutil.rmtree(work)
    tree = os.path.join(work, "tree")
    shutil.copytree(os.path.join(source_root, "tool", "bazel"), os.path.join(tree, "tool", "bazel"))
    shutil.copytree(os.path.join(source_root, "examples", "bazel"),
                    os.path.join(tree, "examples", "bazel"),
                    ignore=shutil.ignore_patterns("bazel-*"))
    workspace = os.path.join(tree, "examples", "bazel")
    env = dict(os.environ)
    env["GRADLINT"] = gradlint
    env["HOME"] = os.path.join(work, "home")
    env.pop("GRADLINT_NO_CACHE", None)
    startup = ["bazel", f"--output_user_root={os.path.join(work, 'output_root')}"]
    build_flags = ["--config=lint", f"--disk_cache={os.path.join(work, 'disk_cache')}"]

    # 1. The docs show the example's files, byte for byte.
    snippets = doc_snippets(os.path.join(source_root, "docs", "integrations", "bazel.md"))
    for path, body in snippets:
        same = open(os.path.join(source_root, path), encoding="utf-8").read() == body
        print(f"== snippet {path}: {'same' if same else 'DIFFERENT'}")

    try:
        # 2. Cold build.
        log = os.path.join(work, "cold.json")
        run(startup + ["build"] + build_flags + [f"--execution_log_json_file={log}", "//..."],
            workspace, env, step="cold")
        print_actions("cold", executed_actions(log))
        for name in ["lib/helpers", "app/train", "app/evaluate", "cc/infer"]:
            print(f"== report //{name.replace('/', ':')}")
            print(open(os.path.join(workspace, "bazel-bin", name + ".gradlint.out")).read(),
                  end="")
            code = open(os.path.join(workspace, "bazel-bin", name + ".gradlint.exit_code")).read()
            print(f"exit code {code.strip()}")
        sarif = json.load(open(os.path.join(workspace, "bazel-bin", "app/train.gradlint.sarif")))
        results = sarif["runs"][0]["results"]
        print("== sarif //app:train: " + ", ".join(r["ruleId"] for r in results))

        # 3. The lint test fails on the findings.
        test = run(startup + ["test"] + build_flags + ["--test_output=errors",
                                                       "//app:gradlint_test"],
                   workspace, env, check=False)
        print(f"== bazel test //app:gradlint_test: exit {test.returncode}")
        for line in test.stdout.splitlines():
            if ": GL" in line:
                print(line)

        # 4. A comment's text changes: the facts do not.
        helpers = os.path.join(workspace, HELPERS)
        source = open(helpers, encoding="utf-8").read()
        before = digest(os.path.join(workspace, SUMMARY))
        edited = source.replace("# The bug:", "# The defect:")
        assert edited != source
        open(helpers, "w", encoding="utf-8").write(edited)
        log = os.path.join(work, "comment.json")
        run(startup + ["build"] + build_flags + [f"--execution_log_json_file={log}", "//..."],
            workspace, env, step="comment edit")
        same = digest(os.path.join(workspace, SUMMARY)) == before
        print(f"== comment edit: summary {'byte-identical' if same else 'CHANGED'}")
        print_actions("comment edit", executed_actions(log))

        # 5. The toggle goes: the summary changes and the dependents run again.
        fixed = edited.replace("    torch.set_grad_enabled(False)\n", "")
        assert fixed != edited
        open(helpers, "w", encoding="utf-8").write(fixed)
        log = os.path.join(work, "facts.json")
        run(startup + ["build"] + build_flags + [f"--execution_log_json_file={log}", "//..."],
            workspace, env, step="facts edit")
        same = digest(os.path.join(workspace, SUMMARY)) == before
        print(f"== facts edit: summary {'byte-identical' if same else 'changed'}")
        print_actions("facts edit", executed_actions(log))
        print("== report //app:train after the fix")
        print(open(os.path.join(workspace, "bazel-bin", "app/train.gradlint.out")).read(), end="")

        # 6. A clean output tree, the disk cache (what a remote cache does) answers everything.
        run(startup + ["clean"], workspace, env)
        log = os.path.join(work, "cached.json")
        run(startup + ["build"] + build_flags + [f"--execution_log_json_file={log}", "//..."],
            workspace, env, step="after bazel clean")
        print_actions("after bazel clean", executed_actions(log))
        for step, seconds in TIMINGS:
            print(f"== time {step}: {seconds:.1f} s")
    finally:
        run(startup + ["shutdown"], workspace, env, check=False)
        # Bazel leaves its output tree read-only; keep the logs, drop the rest.
        subprocess.run(["chmod", "-R", "u+w", os.path.join(work, "output_root")], check=False)
        shutil.rmtree(os.path.join(work, "output_root"), ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
