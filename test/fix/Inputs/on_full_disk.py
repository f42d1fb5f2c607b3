"""Run a command in a folder on a small tmpfs that is full, then unmount it.

    on_full_disk.py DIR FILE COMMAND [ARGS...]

Mounts a 64 KiB tmpfs on DIR, copies FILE into it, fills the rest of it, and runs COMMAND in
DIR. Afterwards FILE's copy is saved as DIR.after/NAME and the folder's listing (without the
filler) printed, so the test can compare them once the tmpfs is gone. Exits with the command's
status (128 + N when signal N ended it, which no test accepts). Needs the permission to mount
(lit feature `tmpfs-mount`, see lit.local.cfg).
"""
import os
import shutil
import subprocess
import sys


def fill(path: str) -> None:
    chunk = bytes(4096)
    with open(path, "wb", buffering=0) as filler:
        try:
            while True:
                filler.write(chunk)
        except OSError:
            pass
    # A write smaller than a page may still fit in the last one; take that too.
    with open(path, "ab", buffering=0) as filler:
        try:
            while True:
                filler.write(b"x")
        except OSError:
            pass


def main() -> int:
    folder, source, command = sys.argv[1], sys.argv[2], sys.argv[3:]
    name = os.path.basename(source)
    os.makedirs(folder, exist_ok=True)
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", folder], check=True)
    try:
        shutil.copyfile(source, os.path.join(folder, name))
        fill(os.path.join(folder, ".filler"))
        status = subprocess.run(command, cwd=folder).returncode
        after = folder.rstrip("/") + ".after"
        shutil.rmtree(after, ignore_errors=True)
        os.makedirs(after)
        shutil.copyfile(os.path.join(folder, name), os.path.join(after, name))
        print(sorted(entry for entry in os.listdir(folder) if entry != ".filler"))
    finally:
        subprocess.run(["umount", folder], check=True)
    return 128 - status if status < 0 else status


if __name__ == "__main__":
    sys.exit(main())
