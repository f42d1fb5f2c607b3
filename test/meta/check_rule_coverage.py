"""Every rule gradlint knows has a documentation page and both kinds of lit test.

    check_rule_coverage.py GRADLINT SRCROOT

For each rule listed by `gradlint rule --all --output-format json`:
  - docs/rules/<CODE>.md exists and its first line is the title `# <CODE> <name>`;
  - test/rules/<CODE>/ has a positive test (a file named positive*, with a RUN line and a
    `CHECK:` line that names the code) and a negative test (a file named negative*, with a RUN
    line, none of whose RUN lines expects a failure with `not`).
Also, every folder under test/rules/ must belong to a rule (no tests left for a removed rule).

Prints `rule coverage: N rules OK`, or one `rule coverage: error: ...` line per problem and
exits 1.
"""
import json
import os
import re
import subprocess
import sys

TEST_SUFFIXES = (".py", ".pyi", ".test", ".cpp")  # .cpp: C++ rules (GL106)


def test_files(folder: str, stem: str) -> list:
    if not os.path.isdir(folder):
        return []
    return sorted(os.path.join(folder, name) for name in os.listdir(folder)
                  if name.startswith(stem) and name.endswith(TEST_SUFFIXES)
                  and os.path.isfile(os.path.join(folder, name)))


def read(path: str) -> str:
    with open(path, encoding="utf-8", errors="replace") as handle:
        return handle.read()


def run_lines(text: str) -> list:
    return [match.group(1).strip() for match in re.finditer(r"\bRUN:(.*)", text)]


def check_rule(srcroot: str, code: str, name: str) -> list:
    problems = []
    page = os.path.join(srcroot, "docs", "rules", code + ".md")
    if not os.path.isfile(page):
        problems.append(f"{code}: no documentation page docs/rules/{code}.md")
    else:
        first = read(page).split("\n", 1)[0].rstrip()
        title = f"# {code} {name}"
        if first != title and not first.startswith(title + " "):
            problems.append(f"{code}: docs/rules/{code}.md starts with {first!r}, "
                            f"expected the title {title!r}")

    folder = os.path.join(srcroot, "test", "rules", code)
    checks_code = re.compile(r"\bCHECK(?:-NEXT|-SAME|-DAG)?:.*\b" + re.escape(code) + r"\b")
    positives = [path for path in test_files(folder, "positive")
                 if run_lines(read(path)) and checks_code.search(read(path))]
    if not positives:
        problems.append(f"{code}: no positive test in test/rules/{code}/ (a positive* file with "
                        f"a RUN line and a CHECK line naming {code})")
    negatives = []
    for path in test_files(folder, "negative"):
        runs = run_lines(read(path))
        if runs and not any(line.startswith("not ") for line in runs):
            negatives.append(path)
    if not negatives:
        problems.append(f"{code}: no negative test in test/rules/{code}/ (a negative* file with "
                        f"a RUN line that expects exit status 0)")
    return problems


def main() -> int:
    if len(sys.argv) != 3:
        print("usage: check_rule_coverage.py GRADLINT SRCROOT", file=sys.stderr)
        return 2
    gradlint, srcroot = sys.argv[1], sys.argv[2]
    listing = subprocess.run([gradlint, "rule", "--all", "--output-format", "json"],
                             capture_output=True, text=True)
    if listing.returncode != 0:
        print(f"rule coverage: error: `gradlint rule --all` exited with {listing.returncode}: "
              f"{listing.stderr.strip()}")
        return 1
    try:
        rules = json.loads(listing.stdout)
        codes = {rule["code"]: rule["name"] for rule in rules}
    except (ValueError, TypeError, KeyError) as error:
        print(f"rule coverage: error: cannot read the rule list: {error}")
        return 1
    problems = []
    if not codes:
        problems.append("`gradlint rule --all` lists no rules")
    for code, name in sorted(codes.items()):
        problems.extend(check_rule(srcroot, code, name))
    rules_dir = os.path.join(srcroot, "test", "rules")
    for entry in sorted(os.listdir(rules_dir)) if os.path.isdir(rules_dir) else []:
        if os.path.isdir(os.path.join(rules_dir, entry)) and entry not in codes:
            problems.append(f"test/rules/{entry}/ belongs to no rule gradlint knows")
    for problem in problems:
        print(f"rule coverage: error: {problem}")
    if problems:
        return 1
    print(f"rule coverage: {len(codes)} rules OK")
    return 0


if __name__ == "__main__":
    sys.exit(main())
