"""Validate `gradlint check --output-format json` on stdin and print one line per finding.

The structure is asserted here (every field present, with the right type); the values are
printed for FileCheck:

    GL101 error leak.py 6:5-6:34 noqa_row=6 url=GL101.md
      related leak.py 7:5-7:28 grad mode is still disabled when `load` returns here
      witness SetGrad 6:5 grad mode set by `torch.set_grad_enabled(False)`

Exits 1 with a `json_summary: error:` line on the first violation.
"""
import json
import os
import sys


def fail(message: str) -> None:
    print(f"json_summary: error: {message}")
    sys.exit(1)


def expect(condition: bool, message: str) -> None:
    if not condition:
        fail(message)


def position(obj: dict, key: str, where: str) -> tuple:
    value = obj.get(key)
    expect(isinstance(value, dict), f"{where}: `{key}` is not an object")
    for field in ("row", "column"):
        expect(isinstance(value.get(field), int) and value[field] >= 1,
               f"{where}: `{key}.{field}` is not a positive integer")
    return value["row"], value["column"]


def filename(obj: dict, where: str) -> str:
    name = obj.get("filename")
    expect(isinstance(name, str) and os.path.isabs(name),
           f"{where}: `filename` is not an absolute path: {name!r}")
    return os.path.basename(name)


def main() -> None:
    try:
        findings = json.load(sys.stdin)
    except ValueError as error:
        fail(f"not valid JSON: {error}")
    expect(isinstance(findings, list), "the top level is not an array")
    print(f"findings: {len(findings)}")
    required = ("code", "message", "filename", "location", "end_location", "noqa_row", "url",
                "severity", "related", "witness")
    for index, finding in enumerate(findings):
        where = f"finding {index}"
        expect(isinstance(finding, dict), f"{where} is not an object")
        for key in required:
            expect(key in finding, f"{where}: missing `{key}`")
        code = finding["code"]
        expect(isinstance(code, str) and code.startswith("GL"), f"{where}: bad `code` {code!r}")
        expect(isinstance(finding["message"], str) and finding["message"],
               f"{where}: empty `message`")
        start = position(finding, "location", where)
        end = position(finding, "end_location", where)
        expect(end >= start, f"{where}: `end_location` {end} is before `location` {start}")
        expect(finding["noqa_row"] == start[0],
               f"{where}: `noqa_row` {finding['noqa_row']} is not the reported row {start[0]}")
        expect(finding["severity"] in ("error", "warning"),
               f"{where}: bad `severity` {finding['severity']!r}")
        url = finding["url"]
        expect(isinstance(url, str) and url.startswith("https://") and url.endswith(f"/{code}.md"),
               f"{where}: `url` {url!r} is not the page of {code}")
        base = filename(finding, where)
        print(f"{code} {finding['severity']} {base} {start[0]}:{start[1]}-{end[0]}:{end[1]} "
              f"noqa_row={finding['noqa_row']} url={url.rsplit('/', 1)[1]}")
        expect(isinstance(finding["related"], list), f"{where}: `related` is not an array")
        for related in finding["related"]:
            rwhere = f"{where}: related"
            expect(isinstance(related, dict), f"{rwhere} is not an object")
            rstart = position(related, "location", rwhere)
            rend = position(related, "end_location", rwhere)
            expect(isinstance(related.get("message"), str), f"{rwhere}: no `message`")
            print(f"  related {filename(related, rwhere)} {rstart[0]}:{rstart[1]}-{rend[0]}:{rend[1]}"
                  f" {related['message']}")
        expect(isinstance(finding["witness"], list), f"{where}: `witness` is not an array")
        for step in finding["witness"]:
            swhere = f"{where}: witness"
            expect(isinstance(step, dict), f"{swhere} is not an object")
            for field in ("kind", "detail"):
                expect(isinstance(step.get(field), str), f"{swhere}: no `{field}`")
            for field in ("row", "column"):
                expect(isinstance(step.get(field), int) and step[field] >= 1,
                       f"{swhere}: `{field}` is not a positive integer")
            print(f"  witness {step['kind']} {step['row']}:{step['column']} {step['detail']}")


if __name__ == "__main__":
    main()
