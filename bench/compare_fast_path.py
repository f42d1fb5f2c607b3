"""Checks that partial parsing changes no finding: runs `gradlint check` on the same paths with
the fast path (prefilter, chunks, rescans) and with `--no-prefilter` (every file parsed whole),
and compares the findings, apart from GL000 (syntax errors are reported only in the parts that
are parsed; documented).

    compare_fast_path.py GRADLINT PATH... [-- EXTRA CHECK ARGS]

Every rule runs (`--select ALL --preview`) unless EXTRA CHECK ARGS select others. Prints the
number of findings each way and every difference; exits 1 when they differ, 2 on a failed run.
"""
import json
import subprocess
import sys


def findings(gradlint, paths, extra, full):
    selection = [] if "--select" in extra else ["--select", "ALL", "--preview"]
    command = [gradlint, "check", "--no-cache", "--exit-zero", "--output-format", "json",
               *selection, *extra, *paths]
    if full:
        command.insert(2, "--no-prefilter")
    run = subprocess.run(command, capture_output=True, text=True)
    if run.returncode != 0:
        sys.stderr.write(run.stderr)
        sys.exit(2)
    return {
        (d["filename"], d["location"]["row"], d["location"]["column"], d["code"], d["message"])
        for d in json.loads(run.stdout)
        if d["code"] != "GL000"
    }


def main() -> int:
    args = sys.argv[1:]
    extra = []
    if "--" in args:
        at = args.index("--")
        args, extra = args[:at], args[at + 1:]
    if len(args) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    gradlint, paths = args[0], args[1:]
    fast = findings(gradlint, paths, extra, full=False)
    full = findings(gradlint, paths, extra, full=True)
    print(f"fast path: {len(fast)} findings; full parse: {len(full)} findings (GL000 aside)")
    for finding in sorted(full - fast):
        print("only in the full parse: {}:{}:{}: {} {}".format(*finding))
    for finding in sorted(fast - full):
        print("only in the fast path: {}:{}:{}: {} {}".format(*finding))
    if fast != full:
        return 1
    print("identical")
    return 0


if __name__ == "__main__":
    sys.exit(main())
