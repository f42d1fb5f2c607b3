#!/usr/bin/env python3
"""Benchmark: a check against each hostile installed package of
test/context/Inputs/make_hostile.py (a 50 MiB module, symlink loops, 10,000 tiny modules, a
.pth file of 10,000 folders, unreadable metadata, a package importing itself), timed with the
context on against --no-context on the same project, in one run. Not a test: numbers vary by
machine. The goal (docs/context.md): each within 2x its --no-context time, exit 0 or 1.

  bench/hostile_env.py [BUILD_DIR]     (RUNS: runs of each command, median kept; default 11)

Runs without a cache (--no-cache), so each run finds the context itself; the two commands
alternate, so a busy machine slows both alike. Prints one row per case: the medians, their
ratio, the same for CPU time (user + system: the steadier one on a shared machine) and the
exit statuses.
"""
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
MAKE = os.path.join(HERE, "..", "test", "context", "Inputs", "make_hostile.py")
CASES = ["big", "loop", "many", "pth", "unreadable", "self"]


def timed(command, cwd):
    """Wall seconds, CPU seconds (user + system) and exit status of one run."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    status = subprocess.run(command, cwd=cwd, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL).returncode
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, status


def main() -> int:
    build = sys.argv[1] if len(sys.argv) > 1 else "build"
    gradlint = os.path.abspath(os.path.join(build, "bin", "gradlint"))
    runs = int(os.environ.get("RUNS", "11"))
    if not os.access(gradlint, os.X_OK):
        print(f"build first: no {gradlint}", file=sys.stderr)
        return 2
    work = tempfile.mkdtemp(prefix="gradlint-hostile-")
    try:
        print(f"{'case':<11} {'context':>9} {'no-context':>11} {'ratio':>6}   "
              f"{'cpu':>8} {'cpu off':>8} {'ratio':>6}  exit")
        for case in CASES:
            root = os.path.join(work, case)
            subprocess.run([sys.executable, MAKE, root, case, "--dense"], check=True)
            proj = os.path.join(root, "proj")
            base = [gradlint, "check", "--no-cache", "train.py"]
            on, off, cpu_on, cpu_off, statuses = [], [], [], [], set()
            for _ in range(runs):
                wall, cpu, status = timed(base, proj)
                on.append(wall)
                cpu_on.append(cpu)
                statuses.add(status)
                wall, cpu, status = timed(base + ["--no-context"], proj)
                off.append(wall)
                cpu_off.append(cpu)
            with_context, without = statistics.median(on), statistics.median(off)
            cpu_with, cpu_without = statistics.median(cpu_on), statistics.median(cpu_off)
            print(f"{case:<11} {with_context * 1000:7.1f}ms {without * 1000:9.1f}ms "
                  f"{with_context / without:5.2f}x   {cpu_with * 1000:6.1f}ms "
                  f"{cpu_without * 1000:6.1f}ms {cpu_with / max(cpu_without, 1e-3):5.2f}x  "
                  f"{','.join(map(str, sorted(statuses)))}")
            os.chmod(root, 0o755)
            for folder, names, _ in os.walk(root):
                for name in names:
                    os.chmod(os.path.join(folder, name), 0o755)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
