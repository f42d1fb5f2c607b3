"""gradlint finds PyTorch grad-mode misuse (the distribution torch-gradlint).

The import package is torch_gradlint, not gradlint: PyPI's `gradlint` is another project (a
diffusion-MRI tool) with an import package of that name, and both may share an environment. The
checker is a native executable. The wheel installs it as a script, into the environment's
bin/ (so `gradlint` starts without Python), and the libraries it needs into lib/gradlint/libs/
of the same prefix, which the executable finds relative to itself. This package only finds the
executable, for `python -m torch_gradlint` and for tools that embed gradlint.
"""
import os
import sys
import sysconfig

__version__ = "@GRADLINT_VERSION@"  # set when the wheel is made (packaging/wheel/make_wheel.py)


def find_gradlint_bin() -> str:
    """The path of the gradlint executable installed with this package.

    Raises FileNotFoundError when there is none (a broken or partial installation).
    """
    name = "gradlint" + (sysconfig.get_config_var("EXE") or "")
    here = os.path.dirname(os.path.abspath(__file__))
    candidates = [
        # PREFIX/lib/pythonX.Y/site-packages/torch_gradlint -> PREFIX/bin: venvs, --prefix,
        # --user, and Debian's /usr/local (dist-packages).
        os.path.join(here, os.pardir, os.pardir, os.pardir, os.pardir, "bin", name),
        # pip install --target DIR: DIR/torch_gradlint and DIR/bin.
        os.path.join(here, os.pardir, "bin", name),
        os.path.join(sysconfig.get_path("scripts"), name),
    ]
    user_scheme = f"{os.name}_user"
    if user_scheme in sysconfig.get_scheme_names():
        candidates.append(os.path.join(sysconfig.get_path("scripts", user_scheme), name))
    for candidate in candidates:
        if os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return os.path.normpath(candidate)
    raise FileNotFoundError(
        "gradlint's executable is not where this package's installation put it; looked at: "
        + ", ".join(os.path.normpath(candidate) for candidate in candidates)
        + f" (reinstall: {sys.executable} -m pip install --force-reinstall torch-gradlint)")


def exec_gradlint(args) -> None:
    """Replaces this process with the gradlint executable run with `args`; exits 2 (gradlint's
    exit code for an error) with a message when the executable is missing."""
    try:
        gradlint = find_gradlint_bin()
    except FileNotFoundError as error:
        print(f"gradlint: error: {error}", file=sys.stderr)
        sys.exit(2)
    os.execv(gradlint, [gradlint, *args])
