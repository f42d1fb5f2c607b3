"""python -m torch_gradlint.pre_commit ARGS...: gradlint as a `language: python` pre-commit hook
runs it.

pre-commit runs such a hook inside the virtual environment it made for the hook: VIRTUAL_ENV
names that environment and its bin/ leads PATH. gradlint reads the installed packages of the
project's environment as context (VIRTUAL_ENV, CONDA_PREFIX, the nearest .venv/venv,
then python3 on PATH), so it would take the hook's environment, which holds only gradlint, and
find nothing there. This hands gradlint the environment as it was before pre-commit changed it.
"""
import os
import sys

from torch_gradlint import exec_gradlint


def main() -> None:
    hook_env = os.environ.pop("VIRTUAL_ENV", None)
    if hook_env is not None:
        hook_bin = os.path.normcase(os.path.realpath(os.path.join(hook_env, "bin")))
        os.environ["PATH"] = os.pathsep.join(
            folder for folder in os.environ.get("PATH", "").split(os.pathsep)
            if os.path.normcase(os.path.realpath(folder or ".")) != hook_bin)
    exec_gradlint(sys.argv[1:])


if __name__ == "__main__":
    main()
