"""Writes every rule fixture again with its code moved into a class (and, in a second copy,
into a class nested in a class), imports kept at the top: the same patterns, now methods, so
the partial parser's class splitting is exercised by every rule's cases.

    wrap_fixtures.py FIXTURE_DIR OUT_DIR
"""
import pathlib
import re
import sys


def wrap(source: str, depth: int) -> str:
    imports, body = [], []
    for line in source.split("\n"):
        (imports if re.match(r"(import |from \S+ import )", line) else body).append(line)
    header = ["class Outer:"] if depth == 1 else ["class Outer:", "    class Inner:"]
    indent = "    " * depth
    wrapped = [indent + line if line.strip() else line for line in body]
    return "\n".join(imports + ["", ""] + header + wrapped + [indent + "pass", ""])


def main() -> int:
    fixtures, out = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
    out.mkdir(parents=True, exist_ok=True)
    for path in sorted(fixtures.rglob("*.py")):
        name = "_".join(path.relative_to(fixtures).parts)
        source = path.read_text(encoding="utf-8", errors="replace")
        (out / f"class_{name}").write_text(wrap(source, 1), encoding="utf-8")
        (out / f"nested_{name}").write_text(wrap(source, 2), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
