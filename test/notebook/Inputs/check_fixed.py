"""Checks a notebook rewritten by `gradlint check --fix`.

    check_fixed.py ORIGINAL FIXED CELL...

CELL are the 1-based numbers of the cells whose source the fix may change. The script checks
that FIXED is a valid nbformat 4 notebook (nbformat.validate), that each named cell's source did
change, and, with `cmp`, that every byte outside those cells' "source" values is identical.
"""
import json
import re
import subprocess
import sys
import tempfile

import nbformat


def source_values(text):
    """The (start, end) offsets of each cell's "source" value, in document order."""
    decoder = json.JSONDecoder()
    spans = []
    for key in re.finditer(r'"source":\s*', text):
        _, end = decoder.raw_decode(text, key.end())
        spans.append((key.end(), end))
    return spans


def outside(text, spans, cells):
    """The text with the values of `cells` (1-based) cut out."""
    pieces, at = [], 0
    for number, (start, end) in enumerate(spans, 1):
        if number in cells:
            pieces.append(text[at:start])
            at = end
    pieces.append(text[at:])
    return "".join(pieces)


def main():
    original_path, fixed_path = sys.argv[1], sys.argv[2]
    cells = {int(c) for c in sys.argv[3:]}
    original = open(original_path, encoding="utf-8").read()
    fixed = open(fixed_path, encoding="utf-8").read()
    nbformat.validate(nbformat.reads(fixed, as_version=4))
    print("valid nbformat 4")
    before, after = source_values(original), source_values(fixed)
    if len(before) != len(after):
        sys.exit("the number of cells changed")
    for number in sorted(cells):
        old = json.loads(original[slice(*before[number - 1])])
        new = json.loads(fixed[slice(*after[number - 1])])
        if old == new:
            sys.exit(f"cell {number} did not change")
        print(f"cell {number} changed")
    with tempfile.NamedTemporaryFile("w", encoding="utf-8") as a, \
            tempfile.NamedTemporaryFile("w", encoding="utf-8") as b:
        a.write(outside(original, before, cells))
        b.write(outside(fixed, after, cells))
        a.flush()
        b.flush()
        if subprocess.call(["cmp", a.name, b.name]) != 0:
            sys.exit("bytes outside the edited cells differ")
    print("identical outside the edited cells")


if __name__ == "__main__":
    main()
