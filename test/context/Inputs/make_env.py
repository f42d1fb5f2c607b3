"""Makes a fake Python environment for the context tests, from files alone (nothing here runs
an interpreter, and neither may gradlint).

  make_env.py venv DIR    a virtual environment: pyvenv.cfg, bin/python, lib/python3.11/
                          site-packages with the packages of site/, their *.dist-info, a .pth
                          file with a path line (to DIR/extra), an import line and a comment,
                          and a symlink loop
  make_env.py debian DIR  a Debian-style installation under DIR/usr: bin/python3 ->
                          python3.11, the standard library in lib/python3.11, the packages in
                          lib/python3/dist-packages (one with a distutils egg-info file), one
                          module in local/lib/python3.11/dist-packages
"""
import os
import shutil
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def write(path, text, mode="w"):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, mode) as f:
        f.write(text)


def copy_packages(site):
    shutil.copytree(os.path.join(HERE, "site"), site, dirs_exist_ok=True)
    info = os.path.join(site, "cosmos_guardrail-0.1.0.dist-info")
    write(os.path.join(info, "METADATA"),
          "Metadata-Version: 2.1\nName: cosmos-guardrail\nVersion: 0.1.0\n"
          "Requires-Dist: Guard_Models (>=1.0)\nRequires-Dist: pytest; extra == \"test\"\n"
          "\nA guardrail.\nRequires-Dist: not-a-header\n")
    # Its requirement, which requires torch: cosmos_guardrail reaches torch through it.
    write(os.path.join(site, "guard_models-1.0.dist-info", "METADATA"),
          "Metadata-Version: 2.1\nName: guard.models\nVersion: 1.0\nRequires-Dist: torch\n")
    # A distribution that requires nothing: imported whole, it is asked for nothing.
    write(os.path.join(site, "undeclared-1.0.dist-info", "METADATA"),
          "Metadata-Version: 2.1\nName: undeclared\nVersion: 1.0\n")
    write(os.path.join(site, "undeclared-1.0.dist-info", "top_level.txt"), "undeclared\n")
    write(os.path.join(info, "top_level.txt"), "cosmos_guardrail\n")
    write(os.path.join(info, "RECORD"),
          "cosmos_guardrail/__init__.py,,\ncosmos_guardrail/checker.py,,\n"
          "cosmos_guardrail-0.1.0.dist-info/RECORD,,\n")
    # No top_level.txt: the top-level names come from RECORD.
    info = os.path.join(site, "nspkg_tools-2.0.dist-info")
    write(os.path.join(info, "METADATA"), "Name: nspkg-tools\nVersion: 2.0\n")
    write(os.path.join(info, "RECORD"), "nspkg/sub/tools.py,sha256=x,10\n")


def venv(root):
    write(os.path.join(root, "pyvenv.cfg"),
          "home = %s\ninclude-system-site-packages = false\nversion = 3.11.4\n"
          % os.path.join(root, "base", "bin"))
    write(os.path.join(root, "bin", "python"), "")
    write(os.path.join(root, "base", "lib", "python3.11", "os.py"), "# the standard library\n")
    site = os.path.join(root, "lib", "python3.11", "site-packages")
    copy_packages(site)
    shutil.copytree(os.path.join(HERE, "extra"), os.path.join(root, "extra"), dirs_exist_ok=True)
    write(os.path.join(site, "extra.pth"),
          "# a comment\n../../../extra\nimport sys; sys.path.insert(0, '/nowhere')\n"
          "/no/such/folder\n")
    os.symlink(".", os.path.join(site, "loop"))


def debian(root):
    usr = os.path.join(root, "usr")
    write(os.path.join(usr, "bin", "python3.11"), "")
    os.symlink("python3.11", os.path.join(usr, "bin", "python3"))
    write(os.path.join(usr, "lib", "python3.11", "os.py"), "# the standard library\n")
    copy_packages(os.path.join(usr, "lib", "python3", "dist-packages"))
    write(os.path.join(usr, "local", "lib", "python3.11", "dist-packages", "localpkg.py"),
          "import torch\n\n\ndef off():\n    torch.set_grad_enabled(False)\n")
    # distutils (Debian's python3-* packages) writes the metadata as one file, name.egg-info.
    dist = os.path.join(usr, "lib", "python3", "dist-packages")
    write(os.path.join(dist, "distutils_pkg", "__init__.py"),
          "import torch\n\n\ndef pause():\n    torch.set_grad_enabled(False)\n")
    write(os.path.join(dist, "distutils_pkg-2.1.egg-info"),
          "Metadata-Version: 1.1\nName: distutils-pkg\nVersion: 2.1\nRequires-Dist: torch\n")


if __name__ == "__main__":
    {"venv": venv, "debian": debian}[sys.argv[1]](sys.argv[2])
