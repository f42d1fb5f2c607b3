"""Compare `--output-format json-lines` with `--output-format json` for the same run.

    json_lines_check.py ARRAY_FILE LINES_FILE

Every line must be one JSON object, and the lines in order must equal the array's elements.
Prints a one-line summary for FileCheck; exits 1 with `json_lines_check: error:` otherwise.
"""
import json
import sys


def main() -> int:
    with open(sys.argv[1], encoding="utf-8") as stream:
        array = json.load(stream)
    with open(sys.argv[2], encoding="utf-8") as stream:
        lines = stream.read().splitlines()
    objects = []
    for number, line in enumerate(lines, 1):
        try:
            value = json.loads(line)
        except ValueError as error:
            print(f"json_lines_check: error: line {number} is not JSON: {error}")
            return 1
        if not isinstance(value, dict):
            print(f"json_lines_check: error: line {number} is not an object")
            return 1
        objects.append(value)
    if objects != array:
        print("json_lines_check: error: the lines differ from the json array")
        return 1
    codes = " ".join(obj["code"] for obj in objects)
    print(f"{len(objects)} lines, the same objects as json: {codes}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
