"""Adds made-up findings at the lines marked `probe-claim` of SOURCE to gradlint's JSON output,
so that a test can show the probe refuting a claim on correct code.

    claim.py FINDINGS.json SOURCE > CLAIMS.json

`# probe-claim` claims GL101 at that line; `# probe-claim GL105` claims GL105's
`inference_mode().__enter__()` form there; `# probe-claim GL304` marks an inference-mode block
and claims GL304 at the line after it (the block is the finding's related location).
"""
import json
import os
import sys

findings = json.load(open(sys.argv[1]))
source = os.path.abspath(sys.argv[2])
for number, line in enumerate(open(source), start=1):
    if "probe-claim" not in line or "def " in line or "CHECK" in line:
        continue
    code = line.split("probe-claim", 1)[1].split()[0] if line.split("probe-claim", 1)[1].split() \
        else "GL101"
    finding = {"code": code, "filename": source, "location": {"row": number, "column": 5},
               "witness": [], "message": "", "related": []}
    if code == "GL105":
        finding["message"] = ("`torch.inference_mode().__enter__()` does nothing lasting: the "
                              "mode lives in the context object")
    if code == "GL304":
        finding["location"]["row"] = number + 1
        finding["related"] = [{"filename": source, "location": {"row": number, "column": 5},
                               "message": "inference mode starts here"}]
    findings.append(finding)
findings.sort(key=lambda finding: finding["location"]["row"])
json.dump(findings, sys.stdout, indent=2)
