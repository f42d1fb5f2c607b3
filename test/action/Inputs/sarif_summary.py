"""Print what code scanning reads from a SARIF log: its version, the tool, and each result."""
import json
import sys

with open(sys.argv[1], encoding="utf-8") as file:
    log = json.load(file)
print(f"sarif {log['version']}")
for run in log["runs"]:
    print(f"tool {run['tool']['driver']['name']}")
    for result in run["results"]:
        location = result["locations"][0]["physicalLocation"]
        print(f"result {result['ruleId']} {location['artifactLocation']['uri']}:"
              f"{location['region']['startLine']} fingerprints={sorted(result.get('partialFingerprints', {}))}")
