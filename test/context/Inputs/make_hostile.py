"""Makes a project whose virtual environment holds one hostile installed package, from files
alone (docs/context.md, "What is read"; test/context/hostile_packages.test and
bench/hostile_env.py use it).

  make_hostile.py DIR CASE [--dense]

DIR/proj is the project: pyproject.toml, train.py (a training loop with a GL101 call to an
installed helper, so the context matters) and .venv. CASE is one of:
  big         hostile/__init__.py of 50 MiB (sparse unless --dense writes real code)
  loop        symlink loops: site-packages/a -> b -> a, and hostile/loop -> . (imported deep)
  many        10,000 tiny modules in a package and 10,000 top-level modules beside it; the
              helper's package star-imports the package and imports 100 of them by name
  pth         a .pth file of 10,000 path lines, each an existing folder
  unreadable  hostile-1.0.dist-info without permissions (meaningful to a user who is not root)
  self        a package whose __init__ imports itself, whole and by name
"""
import os
import sys

CHECKED = """import torch
import hostile
from hostile import freeze
{extra}

def main(model, opt, data):
    freeze()
    for x in data:
        opt.zero_grad()
        model(x).sum().backward()
        opt.step()
"""

HELPER = """import torch
{extra}

def freeze():
    torch.set_grad_enabled(False)
"""


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)


def main() -> int:
    root, case = sys.argv[1], sys.argv[2]
    dense = "--dense" in sys.argv[3:]
    proj = os.path.join(root, "proj")
    site = os.path.join(proj, ".venv", "lib", "python3.11", "site-packages")
    write(os.path.join(proj, ".venv", "pyvenv.cfg"),
          "home = /nonexistent/bin\nversion = 3.11.2\ninclude-system-site-packages = false\n")
    write(os.path.join(proj, "pyproject.toml"), "")
    checked_extra, helper_extra = "", ""
    if case == "big":
        init = os.path.join(site, "hostile", "__init__.py")
        write(init, HELPER.format(extra=""))
        with open(init, "a") as f:
            if dense:
                line = "TABLE = [" + ", ".join(str(i) for i in range(200)) + "]\n"
                while f.tell() < 50 << 20:
                    f.write(line)
            else:
                f.truncate(50 << 20)
    elif case == "loop":
        os.makedirs(os.path.join(site, "hostile"))
        os.symlink("b", os.path.join(site, "a"))
        os.symlink("a", os.path.join(site, "b"))
        os.symlink(".", os.path.join(site, "hostile", "loop"))
        checked_extra = "import a\nimport hostile.loop.loop.loop.loop\n"
    elif case == "many":
        package = os.path.join(site, "many")
        os.makedirs(package)
        write(os.path.join(package, "__init__.py"), "")
        for i in range(10000):
            with open(os.path.join(package, f"m{i}.py"), "w") as f:
                f.write(f"import torch\n\n\ndef f{i}():\n    pass\n")
            with open(os.path.join(site, f"top{i}.py"), "w") as f:
                f.write("import torch\n")
        helper_extra = "from many import *\n" + "".join(f"from many import m{i}\n"
                                                        for i in range(0, 10000, 100))
        checked_extra = "from many import m1, m9999\nimport top5000\n"
    elif case == "pth":
        folders = os.path.join(root, "folders")
        os.makedirs(site, exist_ok=True)
        with open(os.path.join(site, "many-folders.pth"), "w") as f:
            for i in range(10000):
                os.makedirs(os.path.join(folders, f"f{i}"))
                f.write(os.path.join(folders, f"f{i}") + "\n")
        checked_extra = "import nothere\n"
    elif case == "unreadable":
        info = os.path.join(site, "hostile-1.0.dist-info")
        write(os.path.join(info, "METADATA"),
              "Metadata-Version: 2.1\nName: hostile\nVersion: 1.0\nRequires-Dist: torch\n")
        write(os.path.join(info, "RECORD"), "hostile/__init__.py,,\n")
        os.chmod(info, 0)
    elif case == "self":
        helper_extra = "import hostile\nfrom hostile import freeze as again\nfrom . import hostile\n"
    else:
        print(f"unknown case {case}", file=sys.stderr)
        return 2
    if case != "big":
        write(os.path.join(site, "hostile", "__init__.py"), HELPER.format(extra=helper_extra))
    write(os.path.join(proj, "train.py"), CHECKED.format(extra=checked_extra))
    return 0


if __name__ == "__main__":
    sys.exit(main())
