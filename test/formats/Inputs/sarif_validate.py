"""Validate a SARIF log with Microsoft's SARIF Multitool and fail on any error or warning.

    sarif_validate.py MULTITOOL LOG

The Multitool exits 0 even when the log breaks the spec, so its own SARIF report is read:
every result at level error or warning (a result without a level is a warning) is printed and
counted. Notes (style advice such as "provide a snippet") are not failures. Exits 1 when the
tool is missing, cannot run, or reports a problem.
"""
import json
import os
import subprocess
import sys
import tempfile


def message(result: dict) -> str:
    text = result.get("message", {})
    if "text" in text:
        return text["text"]
    return f"{text.get('id', '')} {text.get('arguments', [])}"


def main() -> int:
    tool, log = sys.argv[1], sys.argv[2]
    if not os.path.isfile(tool):
        print(f"sarif_validate: error: no SARIF Multitool at {tool}; CMake installs "
              "@microsoft/sarif-multitool from npm when it configures the tests (re-run cmake "
              "with access to the npm registry)")
        return 1
    with tempfile.TemporaryDirectory() as folder:
        report = os.path.join(folder, "validation.sarif")
        try:
            run = subprocess.run([tool, "validate", log, "--output", report, "--log",
                                  "ForceOverwrite"], capture_output=True, text=True, timeout=600)
        except OSError as error:
            print(f"sarif_validate: error: cannot run {tool}: {error}")
            return 1
        if run.returncode != 0 or not os.path.exists(report):
            print(f"sarif_validate: error: the Multitool failed (exit {run.returncode}):")
            print(run.stdout + run.stderr)
            return 1
        with open(report, encoding="utf-8-sig") as stream:
            runs = json.load(stream).get("runs", [])
    counts = {"error": 0, "warning": 0}
    for run_log in runs:
        for notification in (run_log.get("invocations") or [{}])[0].get(
                "toolExecutionNotifications", []):
            if notification.get("level", "warning") == "error":
                print(f"error {message(notification)}")
                counts["error"] += 1
        for result in run_log.get("results", []):
            level = result.get("level", "warning")
            if level in counts:
                counts[level] += 1
                print(f"{level} {result.get('ruleId')}: {message(result)}")
    print(f"SARIF Multitool: {counts['error']} errors, {counts['warning']} warnings")
    return 1 if counts["error"] or counts["warning"] else 0


if __name__ == "__main__":
    sys.exit(main())
