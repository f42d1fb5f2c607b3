"""Run a command without the power to read every file, and exit with its status.

    unprivileged.py COMMAND [ARGS...]

Tests of unreadable files and folders (chmod 000) mean nothing to root, which reads them
anyway. When this runs as root it drops to nobody (uid/gid 65534, no supplementary groups) for
the command; otherwise it runs the command as is. A command killed by a signal exits with
128 + the signal number, which no test accepts.
"""
import os
import subprocess
import sys


def main() -> int:
    options = {}
    if os.geteuid() == 0:
        options = {"user": 65534, "group": 65534, "extra_groups": []}
    status = subprocess.run(sys.argv[1:], **options).returncode
    return 128 - status if status < 0 else status


if __name__ == "__main__":
    sys.exit(main())
