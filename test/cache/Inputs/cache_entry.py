"""Edits the result-cache entries in a folder, so a test can tell a hit from a fresh run.

    cache_entry.py tamper DIR    prefix every stored message with "CACHED "
    cache_entry.py truncate DIR  cut every entry in half (a crash mid-write, a full disk)
    cache_entry.py count DIR     print "entries: N" and whether each one is valid JSON
"""
import glob
import json
import os
import sys


def main() -> int:
    mode, folder = sys.argv[1], sys.argv[2]
    entries = sorted(glob.glob(os.path.join(folder, "run-*.json")))
    if mode == "count":
        valid = 0
        for path in entries:
            try:
                with open(path, encoding="utf-8") as f:
                    json.load(f)
                valid += 1
            except ValueError:
                pass
        print(f"entries: {len(entries)}, valid: {valid}")
        return 0
    for path in entries:
        with open(path, "rb") as f:
            data = f.read()
        if mode == "truncate":
            data = data[: len(data) // 2]
        else:
            entry = json.loads(data)
            for file in entry["files"]:
                for diagnostic in file["diagnostics"]:
                    diagnostic["message"] = "CACHED " + diagnostic["message"]
            data = json.dumps(entry).encode()
        with open(path, "wb") as f:
            f.write(data)
    return 0 if entries else 1


if __name__ == "__main__":
    sys.exit(main())
