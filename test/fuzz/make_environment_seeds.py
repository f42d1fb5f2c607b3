#!/usr/bin/env python3
"""Writes seeds for fuzz_environment (the archive format is described at the top of
fuzz_environment.cpp) from test/context's trees: a project of test/context/Inputs with a fake
environment that test/context/Inputs/make_env.py builds (a virtual environment at .venv, or a
Debian-style installation named by `--python`), each as one archive file.

  test/fuzz/make_environment_seeds.py OUT_DIR
"""
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
INPUTS = os.path.join(HERE, "..", "context", "Inputs")
MAX_FILE = 4096  # keeps each execution fast; the harness caps files at 16 KiB anyway


def archive(root, settings):
    lines = ["# fuzz_environment seed: see test/fuzz/make_environment_seeds.py\n"]
    for key, value in settings:
        lines.append("@@! %s %s\n" % (key, value))
    for folder, dirs, files in os.walk(root):
        dirs.sort()
        for name in sorted(dirs + files):
            path = os.path.join(folder, name)
            rel = os.path.relpath(path, root)
            if os.path.islink(path):
                lines.append("@@> %s %s\n" % (rel, os.readlink(path)))
            elif os.path.isdir(path):
                if not os.listdir(path):
                    lines.append("@@ %s/\n" % rel)
            else:
                with open(path, "rb") as f:
                    data = f.read(MAX_FILE).decode("latin-1")  # bytes kept as they are
                data = data.replace(root, "$TREE")
                # A line starting with @@ would end the file early.
                data = "".join(
                    " " + line if line.startswith("@@") else line
                    for line in data.splitlines(True))
                lines.append("@@ %s\n%s" % (rel, data))
    return "".join(lines)


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    cases = [
        ("project_venv", "project", "venv", []),
        ("app_venv", "app", "venv", []),
        ("ctx_project_venv", "ctx_project", "venv", []),
        ("plain_import_debian", "plain_import", "debian",
         [("python", "sys/usr/bin/python3")]),
        ("summary_cache_debian_on_path", "summary_cache", "debian", []),
    ]
    for name, project, kind, settings in cases:
        with tempfile.TemporaryDirectory() as tmp:
            root = os.path.join(tmp, "tree")
            shutil.copytree(os.path.join(INPUTS, project), root, symlinks=True)
            if kind == "venv":
                env = os.path.join(root, ".venv")
            else:
                env = os.path.join(root, "sys")
            subprocess.run([sys.executable, os.path.join(INPUTS, "make_env.py"), kind, env],
                           check=True)
            if name.endswith("_on_path"):  # the python3 on PATH (the harness sets TREE/bin)
                os.makedirs(os.path.join(root, "bin"))
                os.symlink("../sys/usr/bin/python3", os.path.join(root, "bin", "python3"))
            with open(os.path.join(out, name + ".txt"), "w", encoding="latin-1") as f:
                f.write(archive(root, settings))


if __name__ == "__main__":
    main()
