"""Run a command and succeed only if its exit status is one of the expected ones.

    expect_exit.py CODES COMMAND [ARGS...]

CODES is a comma-separated list (`2`, `0,1`). The command's stdout and stderr pass through
untouched, so the RUN line can still pipe them into FileCheck. lit's internal shell has only
`not` (any non-zero status), which cannot tell findings (1) from errors (2), nor a crash (a
signal) from either; this can. A command killed by a signal always fails, whatever CODES says.
"""
import subprocess
import sys


def main() -> int:
    if len(sys.argv) < 3:
        print("usage: expect_exit.py CODES COMMAND [ARGS...]", file=sys.stderr)
        return 2
    expected = {int(code) for code in sys.argv[1].split(",")}
    status = subprocess.run(sys.argv[2:]).returncode
    if status < 0:
        print(f"expect_exit: {sys.argv[2]} was killed by signal {-status}", file=sys.stderr)
        return 1
    if status not in expected:
        wanted = " or ".join(str(code) for code in sorted(expected))
        print(f"expect_exit: {sys.argv[2]} exited with {status}, expected {wanted}",
              file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
