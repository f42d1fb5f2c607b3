"""Writes a virtual environment (files only) whose installed distributions import each other
at their top level, the shape of huggingface/diffusers#13790 in small:

  pipes 1.0       pipes/__init__.py re-exports VideoPipe from pipes.video, whose top level
                  imports guard under `if`
  guard 0.1.0     guard/__init__.py re-exports Checker from guard.checker, whose top level
                  runs `from face.data import cfg` (and imports numpy, which is not installed)
  face-py 0.0.1   face/__init__.py imports face.infer, whose top level disables grad mode
  lazyguard 1.0   imports guard only inside a function
  plain 1.0       requires nothing that reaches torch: never read for installed code

    python3 make_chain_env.py VENV
"""
import os
import sys


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)


def distribution(site, name, version, top, requires, files):
    info = os.path.join(site, f"{name.replace('-', '_')}-{version}.dist-info")
    lines = ["Metadata-Version: 2.1", f"Name: {name}", f"Version: {version}"]
    lines += [f"Requires-Dist: {r}" for r in requires]
    write(os.path.join(info, "METADATA"), "\n".join(lines) + "\n")
    write(os.path.join(info, "top_level.txt"), top + "\n")
    for path, text in files.items():
        write(os.path.join(site, path), text)


def main():
    venv = sys.argv[1]
    write(os.path.join(venv, "pyvenv.cfg"), "home = /nowhere/bin\nversion = 3.11.4\n")
    write(os.path.join(venv, "bin", "python"), "")
    site = os.path.join(venv, "lib", "python3.11", "site-packages")
    distribution(site, "pipes", "1.0", "pipes", ["numpy", 'torch>=2; extra == "torch"'], {
        "pipes/__init__.py": "from .video import VideoPipe\n",
        "pipes/video.py": (
            "import torch\n\nfrom .utils import guard_available\n\n"
            "if guard_available():\n    from guard import Checker\n\n\n"
            "class VideoPipe:\n    def __init__(self):\n        self.checker = Checker()\n"),
        "pipes/utils.py": "def guard_available():\n    return True\n",
    })
    distribution(site, "guard", "0.1.0", "guard", ["torch>=2.6", "face-py>=0.0.1", "plain"], {
        "guard/__init__.py": "from .checker import Checker\n",
        "guard/checker.py": (
            "import numpy as np\nimport plain\nfrom face.data import cfg\n\n\n"
            "class Checker:\n    def __init__(self):\n        self.cfg = cfg\n"),
    })
    distribution(site, "face-py", "0.0.1", "face", ["numpy", "torch>=1.1"], {
        "face/__init__.py": "from .infer import Detector\n",
        "face/infer.py": (
            "import torch\n\ntorch.set_grad_enabled(False)\n\n\n"
            "class Detector:\n    pass\n"),
        "face/data/__init__.py": "cfg = {}\n",
    })
    distribution(site, "lazyguard", "1.0", "lazyguard", ["guard"], {
        "lazyguard/__init__.py": "def check():\n    from guard import Checker\n\n    return Checker\n",
    })
    # Declares nothing that reaches torch (its top level would say otherwise: the documented
    # limit), so installed code importing it does not read it.
    distribution(site, "plain", "1.0", "plain", ["numpy"], {
        "plain/__init__.py": "import torch\n\ntorch.set_grad_enabled(False)\n",
    })


if __name__ == "__main__":
    main()
