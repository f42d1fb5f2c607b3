"""Starts several gradlint runs at once over the same files and cache folder, ROUNDS times,
and checks that each one exited with the expected status, no signal ended any, and all printed
the same report. Between rounds every other run edits nothing, so later rounds race readers of
an entry against writers replacing it.

    concurrent_runs.py RUNS ROUNDS EXPECTED_EXIT -- GRADLINT_COMMAND...
"""
import subprocess
import sys


def main() -> int:
    runs, rounds, expected = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
    command = sys.argv[sys.argv.index("--") + 1:]
    reports = set()
    for _ in range(rounds):
        processes = [subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
                     for _ in range(runs)]
        for process in processes:
            out, err = process.communicate(timeout=120)
            if process.returncode < 0:
                print(f"FAIL: signal {-process.returncode}: {err.decode(errors='replace')}")
                return 1
            if process.returncode != expected:
                print(f"FAIL: exit {process.returncode}, expected {expected}: "
                      f"{err.decode(errors='replace')}")
                return 1
            if err:
                print(f"FAIL: unexpected stderr: {err.decode(errors='replace')}")
                return 1
            reports.add(out)
    if len(reports) != 1:
        print(f"FAIL: {len(reports)} different reports")
        return 1
    sys.stdout.write(reports.pop().decode())
    return 0


if __name__ == "__main__":
    sys.exit(main())
