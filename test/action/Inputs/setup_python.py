"""Stand in for actions/setup-python (or any Python a workflow sets up before the Action):

    setup_python.py PYTHON VENV

makes a virtual environment VENV with PYTHON (no pip: it is not needed, and making one offline
with pip costs seconds), with `pip` and `pytest` commands of its own in VENV/bin (stubs that
only have to be found there), and the packages of the context tests installed in its
site-packages (test/context/Inputs/make_env.py: cosmos_guardrail's CosmosSafetyChecker leaves
grad mode disabled). run_action.py --setup-python VENV puts VENV/bin first on PATH.
"""
import glob
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, os.pardir, os.pardir, "context", "Inputs"))
import make_env  # noqa: E402 (found through the path above)


def main() -> None:
    python, venv = sys.argv[1], os.path.abspath(sys.argv[2])
    subprocess.run([python, "-m", "venv", "--without-pip", venv], check=True)
    for command in ("pip", "pytest"):
        stub = os.path.join(venv, "bin", command)
        with open(stub, "w", encoding="utf-8") as file:
            file.write(f"#!/bin/sh\necho '{command} of the workflow'\n")
        os.chmod(stub, 0o755)
    (site,) = glob.glob(os.path.join(venv, "lib", "python3*", "site-packages"))
    make_env.copy_packages(site)


if __name__ == "__main__":
    main()
