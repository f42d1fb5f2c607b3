"""Print the `fix` field of each finding of `--output-format json` (read from stdin).

    GL103 6:5 safe "Use `torch.set_grad_enabled`"
      edit 6:5-6:31 "torch.set_grad_enabled"

Asserts ruff's shape: `fix` is null or an object with `applicability` ("safe" or "unsafe"),
`message` and `edits`, each edit with `content`, `location` and `end_location` ({row, column},
1-based). Exits 1 with `fix_summary: error:` otherwise.
"""
import json
import sys


def fail(message: str) -> None:
    print(f"fix_summary: error: {message}")
    sys.exit(1)


def position(obj: dict, key: str) -> str:
    value = obj.get(key)
    if not isinstance(value, dict) or set(value) != {"row", "column"}:
        fail(f"`{key}` is not {{row, column}}: {value!r}")
    if not all(isinstance(value[k], int) and value[k] >= 1 for k in ("row", "column")):
        fail(f"`{key}` has a non-positive field: {value!r}")
    return f"{value['row']}:{value['column']}"


def main() -> None:
    for finding in json.load(sys.stdin):
        where = f"{finding['code']} {position(finding, 'location')}"
        if "fix" not in finding:
            fail(f"{where}: no `fix` field")
        fix = finding["fix"]
        if fix is None:
            print(f"{where} no fix")
            continue
        if set(fix) != {"applicability", "message", "edits"}:
            fail(f"{where}: fix fields {sorted(fix)}")
        if fix["applicability"] not in ("safe", "unsafe"):
            fail(f"{where}: applicability {fix['applicability']!r}")
        print(f"{where} {fix['applicability']} {json.dumps(fix['message'])}")
        for edit in fix["edits"]:
            if set(edit) != {"content", "location", "end_location"}:
                fail(f"{where}: edit fields {sorted(edit)}")
            print(f"  edit {position(edit, 'location')}-{position(edit, 'end_location')} "
                  f"{json.dumps(edit['content'])}")


if __name__ == "__main__":
    main()
