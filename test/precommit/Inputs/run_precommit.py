"""Drive the real `pre-commit` through `git commit` with this repository's gradlint hook.

    run_precommit.py GRADLINT_BINARY SOURCE_ROOT WORK_FOLDER
    run_precommit.py --hooks REPOSITORY REV SOURCE_ROOT WORK_FOLDER

Builds, under WORK_FOLDER, a git repository holding a copy of SOURCE_ROOT/.pre-commit-hooks.yaml
(a hook repository at a commit, as users reference this one) and a user repository whose
.pre-commit-config.yaml points at it. With --hooks, the configuration points at REPOSITORY at
REV instead (the `language: python` hook repository, packaging/pre-commit-mirror), PATH is left
as it is, and the hook must bring its own gradlint. Then commits, each time printing the exit status and the
output for FileCheck:
  1. a staged file with a grad-mode leak: the commit fails and shows the finding;
  2. a clean file, with the leaking file still in the working tree but not staged: it passes
     (only staged files are checked);
  3. a leak silenced with `# noqa: GL101`: it passes;
  4. a helper that leaves grad mode disabled (silenced: its callers are meant to restore), then
     a caller staged alone: the helper is context, and the commit of the caller fails at its
     call.
  5. a staged notebook whose cell 2 disables grad and cell 3 trains: the commit fails (the
     hook's `types_or` passes notebooks).
  6. a caller of a class from an installed package whose `__init__` leaves grad mode disabled,
     the package in a virtual environment at the project's `.venv` (made by
     test/context/Inputs/make_env.py, ignored by git): the commit fails at the caller's line.
Everything is local: pre-commit clones the hook repository from its path, and `language:
system` installs nothing (the folder holding GRADLINT_BINARY goes first on PATH); a `language:
python` hook installs what pip finds with the caller's PIP_* settings (PIP_NO_INDEX,
PIP_FIND_LINKS).
"""
import json
import os
import shutil
import subprocess
import sys

LEAK = """import torch


def load(path):
    torch.set_grad_enabled(False)
    return torch.load(path)
"""

CLEAN = """import torch


def predict(model, batch):
    with torch.no_grad():
        return model(batch)
"""

SILENCED = """import torch


def load(path):
    torch.set_grad_enabled(False)  # noqa: GL101
    return torch.load(path)
"""

HELPER = """import torch


def freeze():
    torch.set_grad_enabled(False)  # noqa: GL101 (its callers restore the mode)
"""

CALLER = """from helper import freeze


def train_step(model):
    freeze()
    return model
"""

INSTALLED_CALLER = """from cosmos_guardrail import CosmosSafetyChecker


def build():
    return CosmosSafetyChecker()
"""

NOTEBOOK = json.dumps({
    "cells": [{"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [],
               "source": source}
              for source in (["import torch\n", "model = torch.nn.Linear(2, 2)"],
                             ["torch.set_grad_enabled(False)"],
                             ["model(torch.ones(1, 2)).sum().backward()"])],
    "metadata": {}, "nbformat": 4, "nbformat_minor": 5}, indent=1) + "\n"


def main() -> int:
    hooks = rev = gradlint = None
    if sys.argv[1] == "--hooks":
        hooks, rev = os.path.abspath(sys.argv[2]), sys.argv[3]
        source_root, work = (os.path.abspath(arg) for arg in sys.argv[4:6])
    else:
        gradlint, source_root, work = (os.path.abspath(arg) for arg in sys.argv[1:4])
    if shutil.which("pre-commit") is None:
        print("run_precommit: error: `pre-commit` is not installed (Debian package pre-commit; "
              "`tool/bootstrap.sh --tests` installs it)")
        return 1
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    env = dict(os.environ)
    env.update({
        "HOME": os.path.join(work, "home"),
        "PRE_COMMIT_HOME": os.path.join(work, "pre-commit-cache"),
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_AUTHOR_NAME": "test", "GIT_AUTHOR_EMAIL": "test@example.invalid",
        "GIT_COMMITTER_NAME": "test", "GIT_COMMITTER_EMAIL": "test@example.invalid",
        "NO_COLOR": "1",
    })
    if gradlint is not None:
        env["PATH"] = os.path.dirname(gradlint) + os.pathsep + env.get("PATH", "")
    for variable in ("VIRTUAL_ENV", "CONDA_PREFIX"):  # the project's .venv decides
        env.pop(variable, None)
    os.makedirs(env["HOME"])

    def run(args, cwd, check=True):
        result = subprocess.run(args, cwd=cwd, env=env, stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT, text=True)
        if check and result.returncode != 0:
            print(f"run_precommit: error: {' '.join(args)} failed:\n{result.stdout}")
            sys.exit(1)
        return result

    if hooks is None:
        hooks = os.path.join(work, "hooks")
        os.makedirs(hooks)
        shutil.copy(os.path.join(source_root, ".pre-commit-hooks.yaml"), hooks)
        run(["git", "init", "-q", "-b", "main"], hooks)
        run(["git", "add", ".pre-commit-hooks.yaml"], hooks)
        run(["git", "commit", "-q", "-m", "hooks"], hooks)
        rev = run(["git", "rev-parse", "HEAD"], hooks).stdout.strip()

    project = os.path.join(work, "project")
    os.makedirs(project)
    run(["git", "init", "-q", "-b", "main"], project)
    with open(os.path.join(project, ".pre-commit-config.yaml"), "w") as config:
        config.write(f"repos:\n  - repo: {hooks}\n    rev: {rev}\n    hooks:\n"
                     "      - id: gradlint\n")
    with open(os.path.join(project, ".gitignore"), "w") as ignore:
        ignore.write(".venv/\n.gradlint_cache/\n")
    run(["git", "add", ".pre-commit-config.yaml", ".gitignore"], project)
    run(["git", "commit", "-q", "--no-verify", "-m", "config"], project)
    run(["pre-commit", "install"], project)

    def attempt(title, name, text):
        with open(os.path.join(project, name), "w") as source:
            source.write(text)
        run(["git", "add", name], project)
        result = run(["git", "commit", "-m", title], project, check=False)
        print(f"== {title}: commit exit {result.returncode}")
        print(result.stdout)
        if result.returncode != 0:
            run(["git", "reset", "-q", "--", name], project)  # unstage, keep in the tree

    attempt("leak", "leak.py", LEAK)
    attempt("clean", "clean.py", CLEAN)
    attempt("noqa", "silenced.py", SILENCED)
    attempt("helper", "helper.py", HELPER)
    attempt("caller", "caller.py", CALLER)
    attempt("notebook", "train.ipynb", NOTEBOOK)
    run([sys.executable, os.path.join(source_root, "test/context/Inputs/make_env.py"), "venv",
         os.path.join(project, ".venv")], project)
    attempt("installed", "pipeline.py", INSTALLED_CALLER)
    return 0


if __name__ == "__main__":
    sys.exit(main())
