"""Runs a gradlint command with GRADLINT_CACHE_MAX_SIZE set to FACTOR times the largest
result entry in DIR (entry sizes hold paths, so a fixed number would depend on where the test
runs), then says whether the folder is within that bound. Passes the command's output and
exit status through.

    with_cache_bound.py FACTOR DIR -- GRADLINT_COMMAND...
"""
import glob
import os
import subprocess
import sys


def folder_bytes(folder: str) -> int:
    total = 0
    for root, _, files in os.walk(folder):
        for name in files:
            if root == folder and name in (".gitignore", "CACHEDIR.TAG"):
                continue
            total += os.path.getsize(os.path.join(root, name))
    return total


def main() -> int:
    factor, folder = float(sys.argv[1]), sys.argv[2]
    command = sys.argv[sys.argv.index("--") + 1:]
    largest = max(os.path.getsize(p) for p in glob.glob(os.path.join(folder, "run-*.json")))
    bound = int(factor * largest)
    env = dict(os.environ, GRADLINT_CACHE_MAX_SIZE=str(bound))
    done = subprocess.run(command, env=env, stdout=subprocess.PIPE)
    sys.stdout.write(done.stdout.decode())
    size = folder_bytes(folder)
    print("within the bound" if size <= bound else f"over the bound: {size} > {bound}")
    return done.returncode


if __name__ == "__main__":
    sys.exit(main())
