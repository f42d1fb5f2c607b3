"""Writes a virtual environment (files only) where the installed-code budget (4 MiB a run)
decides what is found: `big.api`'s top level imports a chain of five modules, the last of which
disables grad mode (each module of it about 100 KiB), while its function `load` imports
`big.heavy`, whose 60 modules of 80 KiB each (4.8 MiB) would spend the whole budget before the
chain's end was read.

    python3 make_budget_env.py VENV
"""
import os
import sys


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)


def main():
    venv = sys.argv[1]
    write(os.path.join(venv, "pyvenv.cfg"), "home = /nowhere/bin\nversion = 3.11.4\n")
    write(os.path.join(venv, "bin", "python"), "")
    site = os.path.join(venv, "lib", "python3.11", "site-packages")
    info = os.path.join(site, "big-1.0.dist-info")
    write(os.path.join(info, "METADATA"),
          "Metadata-Version: 2.1\nName: big\nVersion: 1.0\nRequires-Dist: torch\n")
    write(os.path.join(info, "top_level.txt"), "big\n")
    pkg = os.path.join(site, "big")
    write(os.path.join(pkg, "__init__.py"), "from .api import load\n")
    write(os.path.join(pkg, "api.py"),
          "from .path1 import STEP\n\n\ndef load():\n    from .heavy import run\n\n    return run()\n")
    # Each module of the chain is larger than what the heavy modules would leave of the budget.
    padding = "".join(f"PATH_{k} = {k}  # padding to make the module large\n" for k in range(2000))
    for i in range(1, 5):
        write(os.path.join(pkg, f"path{i}.py"), f"from .path{i + 1} import STEP\n" + padding)
    write(os.path.join(pkg, "path5.py"),
          "import torch\n\ntorch.set_grad_enabled(False)\nSTEP = 5\n" + padding)
    heavy = os.path.join(pkg, "heavy")
    names = [f"h{i}" for i in range(60)]
    write(os.path.join(heavy, "__init__.py"),
          "".join(f"from . import {n}\n" for n in names) + "\n\ndef run():\n    return 0\n")
    filler = "".join(f"VALUE_{k} = {k}  # padding to make the module large\n" for k in range(1600))
    for n in names:
        write(os.path.join(heavy, f"{n}.py"), "import torch\n\n" + filler)


if __name__ == "__main__":
    main()
