"""No doc or config of the tree installs gradlint under the PyPI name `gradlint`.

    check_install_names.py ROOT

gradlint's distribution is torch-gradlint and its import package torch_gradlint: the PyPI
project `gradlint` is another tool (a diffusion-MRI package with a `gradlint` command and a
`gradlint` import package), so every install of that name installs it, or fails. This reads each
text file under ROOT (the files git tracks, or every file when ROOT is no git checkout) and
reports, as `PATH:LINE: WHAT: TEXT`:
  - an install command that names the requirement `gradlint` (pip, pip3, python -m pip, pipx,
    uv pip, uv tool, uv add, uvx, pipx run, poetry add, pdm add), with or without a version,
    extras or marker; the command ends at a backtick, `#`, `;`, `|`, `&&` or `)`;
  - a version pin of it anywhere (`gradlint==1.0`, `"gradlint>=1"`: pyproject dependencies,
    requirements files, the Action's shell);
  - an entry of a pre-commit `additional_dependencies` list, inline or as a block;
  - a bare `gradlint` line in a requirements file;
  - a run or an import of the import package `gradlint` (`python -m gradlint`, `import gradlint`,
    `from gradlint import`), which is the other project's.
Names that only start with gradlint (`gradlint-cpp`, the Debian package; `gradlint-pre-commit`)
and local paths (`./dist/x.whl`, `.`) are other names. Exits 1 when it reports anything.
"""
import os
import re
import subprocess
import sys

# This check, its test and the test's fixtures name every shape it reports.
EXCLUDED = ("test/meta/Inputs/install_names/", "test/meta/check_install_names.py",
            "test/meta/install_names.test")
# Folders that a tree without git holds but that are not its sources.
SKIPPED_FOLDERS = {".git", "node_modules", "_deps", "__pycache__"}
MAX_BYTES = 2_000_000

BARE_NAME = re.compile(r"gradlint(\[[^\]]*\])?(\s*(===?|[<>!~]=|[<>]|;|@).*)?", re.IGNORECASE)
# `pipx run X` and `uvx X` install X from the index; `uv run X` and `poetry run X` run what the
# project has installed. The rest of the line is a lookahead, so that a second command on the
# line (after a `#`) is matched too.
INSTALL = re.compile(
    r"(?<![\w-])(?:(?:pip3?|pipx|uv\s+pip|uv\s+tool|uv|poetry|pdm|python[\d.]*\s+-m\s+pip)"
    r"\s+(?:install|add)|(?:pipx|uv\s+tool)\s+run|uvx)\b(?=(?P<rest>[^`]*))", re.IGNORECASE)
COMMAND_END = re.compile(r"`|\s#|;|\||&&|\)")
PIN = re.compile(r"(?<![\w./-])gradlint(\[[^\]]*\])?\s*(===?|~=|>=|<=|!=)\s*[\w$@{*]",
                 re.IGNORECASE)
ADDITIONAL = re.compile(r"additional_dependencies\s*:\s*(?P<inline>\[.*)?$")
BLOCK_ENTRY = re.compile(r"\s*-\s+(?P<entry>\S.*?)\s*$")
IMPORT = re.compile(r"(?<![\w.-])(?:python[\d.]*\s+-m\s+gradlint(?![\w-])|^\s*import\s+gradlint"
                    r"(?![\w-])|^\s*from\s+gradlint(?:\.\w+)*\s+import\b)")


def is_bare_name(token: str) -> bool:
    return BARE_NAME.fullmatch(token.strip("'\",[]{}")) is not None


def git(root: str, *args: str) -> str:
    return subprocess.run(["git", "-C", root, *args], stdout=subprocess.PIPE,
                          stderr=subprocess.DEVNULL, check=True).stdout.decode()


def tracked_files(root: str):
    """The files git tracks when ROOT is a checkout's top folder, else every file under it."""
    try:
        top = git(root, "rev-parse", "--show-toplevel").strip()
        if os.path.realpath(top) != os.path.realpath(root):
            raise ValueError("inside a checkout, not its top")
        return sorted(name for name in git(root, "ls-files", "-z").split("\0") if name)
    except (OSError, ValueError, subprocess.CalledProcessError):
        names = []
        for folder, subfolders, files in os.walk(root):
            # Build folders (CMakeCache.txt) hold test outputs, not sources.
            subfolders[:] = sorted(
                name for name in subfolders if name not in SKIPPED_FOLDERS
                and not os.path.isfile(os.path.join(folder, name, "CMakeCache.txt")))
            relative = os.path.relpath(folder, root)
            names += [os.path.normpath(os.path.join(relative, name)).replace(os.sep, "/")
                      for name in files]
        return sorted(names)


def findings_in(name: str, text: str):
    requirements_file = re.search(r"(^|/)requirements[^/]*\.(txt|in)$", name) is not None
    in_additional_block = False
    for number, line in enumerate(text.splitlines(), 1):
        found = []
        for match in INSTALL.finditer(line):
            tokens = COMMAND_END.split(match["rest"], 1)[0].split()
            # `uvx --from PACKAGE COMMAND`, `pipx run --spec PACKAGE COMMAND`: only PACKAGE is
            # installed; COMMAND may well be `gradlint`.
            for option in ("--from", "--spec"):
                if option in tokens[:-1]:
                    tokens = [tokens[tokens.index(option) + 1]]
            if any(is_bare_name(token) for token in tokens if not token.startswith("-")):
                found.append("installs PyPI's `gradlint` (another project): install torch-gradlint")
                break
        if PIN.search(line) and not found:
            found.append("pins PyPI's `gradlint` (another project): pin torch-gradlint")
        additional = ADDITIONAL.search(line)
        if additional:
            in_additional_block = not additional["inline"]
            entries = re.split(r"[\s,]+", (additional["inline"] or "").strip("[] "))
            if any(is_bare_name(entry) for entry in entries) and not found:
                found.append("pre-commit additional_dependencies names PyPI's `gradlint`")
        elif in_additional_block:
            entry = BLOCK_ENTRY.fullmatch(line)
            if entry is None:
                in_additional_block = False
            elif is_bare_name(entry["entry"]) and not found:
                found.append("pre-commit additional_dependencies names PyPI's `gradlint`")
        if requirements_file and is_bare_name(line.split("#", 1)[0].strip()) and not found:
            found.append("requires PyPI's `gradlint` (another project): require torch-gradlint")
        if IMPORT.search(line):
            found.append("runs the import package `gradlint` (another project's): torch_gradlint")
        for what in found:
            yield number, what, line.strip()


def main() -> int:
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    root = sys.argv[1]
    count = 0
    reported = 0
    for name in tracked_files(root):
        if name.startswith(EXCLUDED):
            continue
        path = os.path.join(root, name)
        try:
            if not os.path.isfile(path) or os.path.getsize(path) > MAX_BYTES:
                continue
            with open(path, "rb") as file:
                data = file.read()
        except OSError:
            continue
        if b"\0" in data:
            continue  # binary
        count += 1
        for number, what, line in findings_in(name, data.decode("utf-8", "replace")):
            print(f"{name}:{number}: {what}: {line}")
            reported += 1
    if reported:
        print(f"{reported} install(s) of PyPI's `gradlint` in {count} files")
        return 1
    print(f"no install of PyPI's `gradlint` in {count} files")
    return 0


if __name__ == "__main__":
    sys.exit(main())
