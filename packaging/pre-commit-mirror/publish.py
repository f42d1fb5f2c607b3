"""Commit and tag a release of gradlint's pre-commit hook repository (docs/release.md).

    publish.py VERSION REPOSITORY

REPOSITORY is a clone of github.com/gradlint/gradlint-pre-commit (made with `git init` when it
does not exist). Writes this folder's hook files there with VERSION filled in, commits them as
"gradlint VERSION" and tags the commit vVERSION: the `rev` that users put in their
.pre-commit-config.yaml. Pushing is left to the release steps. The torch-gradlint VERSION
wheel must be on PyPI before the tag is pushed: pre-commit pip installs it.
"""
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
FILES = (".pre-commit-hooks.yaml", "pyproject.toml", "README.md")


def git(repository: str, *args: str) -> str:
    result = subprocess.run(["git", "-C", repository, *args], stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True)
    if result.returncode != 0:
        sys.exit(f"publish: error: git {' '.join(args)} failed in {repository}:\n{result.stdout}")
    return result.stdout


def main() -> None:
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    version, repository = sys.argv[1], os.path.abspath(sys.argv[2])
    if not re.fullmatch(r"\d+\.\d+\.\d+", version):
        sys.exit(f"publish: error: {version!r} is not a version (X.Y.Z)")
    if not os.path.isdir(os.path.join(repository, ".git")):
        os.makedirs(repository, exist_ok=True)
        git(repository, "init", "-q", "-b", "main")
    tag = f"v{version}"
    if git(repository, "tag", "--list", tag).strip():
        sys.exit(f"publish: error: {repository} already has the tag {tag}")
    for name in FILES:
        with open(os.path.join(HERE, name), encoding="utf-8") as template:
            text = template.read().replace("@GRADLINT_VERSION@", version)
        with open(os.path.join(repository, name), "w", encoding="utf-8") as out:
            out.write(text)
    git(repository, "add", *FILES)
    git(repository, "commit", "-q", "--allow-empty", "-m", f"gradlint {version}")
    git(repository, "tag", "-a", tag, "-m", f"gradlint {version}")
    print(f"{repository}: {tag} at {git(repository, 'rev-parse', 'HEAD').strip()}")


if __name__ == "__main__":
    main()
