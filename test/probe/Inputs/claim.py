"""Adds a made-up GL101 finding at the line marked `probe-claim` of SOURCE to gradlint's JSON
output, so that a test can show the probe refuting a claim on correct code.

    claim.py FINDINGS.json SOURCE > CLAIMS.json
"""
import json
import os
import sys

findings = json.load(open(sys.argv[1]))
source = os.path.abspath(sys.argv[2])
for number, line in enumerate(open(source), start=1):
    if "probe-claim" in line and "def " not in line and "CHECK" not in line:
        findings.append({"code": "GL101", "filename": source,
                         "location": {"row": number, "column": 5}, "witness": []})
findings.sort(key=lambda finding: finding["location"]["row"])
json.dump(findings, sys.stdout, indent=2)
