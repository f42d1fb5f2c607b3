"""Check the structure of gradlint's SARIF log and print what FileCheck compares.

    sarif_summary.py LOG                 the driver, rules and results, one line each
    sarif_summary.py LOG OTHER_LOG       compares the fingerprints of two runs

Asserts what the schema cannot: ruleIndex points at the rule with the result's ruleId, every
relative URI uses a uriBaseId that originalUriBaseIds defines as an absolute `file:` URI ending
in `/`, every result has a partial fingerprint, and the one invocation is unsuccessful exactly
when it has tool notifications. Exits 1 with `sarif_summary: error:`.
"""
import json
import sys


def fail(message: str) -> None:
    print(f"sarif_summary: error: {message}")
    sys.exit(1)


def load(path: str) -> dict:
    with open(path, encoding="utf-8") as stream:
        log = json.load(stream)
    if log.get("version") != "2.1.0" or len(log.get("runs", [])) != 1:
        fail(f"{path}: not a one-run SARIF 2.1.0 log")
    return log["runs"][0]


def where(location: dict, bases: dict) -> str:
    physical = location["physicalLocation"]
    artifact = physical["artifactLocation"]
    uri = artifact["uri"]
    if "uriBaseId" in artifact:
        base = bases.get(artifact["uriBaseId"])
        if base is None:
            fail(f"uriBaseId {artifact['uriBaseId']} is not in originalUriBaseIds")
        if uri.startswith("/") or ":" in uri.split("/")[0]:
            fail(f"{uri} has a uriBaseId but is not relative")
        uri = f"{artifact['uriBaseId']}/{uri}"
    elif not uri.startswith("file:///"):
        fail(f"{uri} is neither relative to a base nor an absolute file URI")
    region = physical["region"]
    return (f"{uri} {region['startLine']}:{region['startColumn']}-"
            f"{region['endLine']}:{region['endColumn']}")


def fingerprints(run: dict) -> list:
    found = []
    for result in run["results"]:
        prints = result.get("partialFingerprints", {})
        if len(prints) != 1:
            fail(f"{result['ruleId']}: expected one partial fingerprint, got {prints}")
        region = result["locations"][0]["physicalLocation"]["region"]
        found.append((result["ruleId"], region["startLine"], next(iter(prints.values()))))
    return found


def summary(run: dict) -> None:
    driver = run["tool"]["driver"]
    print(f"driver {driver['name']} version={bool(driver.get('version'))} "
          f"informationUri={driver.get('informationUri')}")
    bases = {}
    for name, base in run.get("originalUriBaseIds", {}).items():
        uri = base.get("uri", "")
        if not (uri.startswith("file:///") and uri.endswith("/")):
            fail(f"base {name} is not an absolute folder URI: {uri}")
        bases[name] = uri
        print(f"base {name}")
    print(f"columnKind {run.get('columnKind')}")
    rules = driver["rules"]
    for rule in rules:
        if rule["id"] in ("GL101", "GL105"):
            help_page = rule.get("help", {}).get("markdown", "")
            print(f"rule {rule['id']} name={rule['name']} "
                  f"level={rule['defaultConfiguration']['level']} "
                  f"help.markdown starts {help_page.splitlines()[0]!r} "
                  f"helpUri={rule['helpUri'].rsplit('/', 1)[1]}")
            print(f"  short: {rule['shortDescription']['text']}")
            print(f"  full: {rule['fullDescription']['text'][:60]}")
    for result in run["results"]:
        rule = rules[result["ruleIndex"]]
        if rule["id"] != result["ruleId"]:
            fail(f"ruleIndex {result['ruleIndex']} is {rule['id']}, not {result['ruleId']}")
        print(f"result {result['ruleId']} {result['level']} "
              f"{where(result['locations'][0], bases)}")
        print(f"  message: {result['message']['text']}")
        for related in result.get("relatedLocations", []):
            print(f"  related {related['id']} {where(related, bases)}: "
                  f"{related['message']['text']}")
        for flow in result.get("codeFlows", []):
            for thread in flow["threadFlows"]:
                for step in thread["locations"]:
                    location = step["location"]
                    print(f"  step {','.join(step.get('kinds', []))} "
                          f"{where(location, bases)}: {location['message']['text']}")
    prints = fingerprints(run)
    if len({value for _, _, value in prints}) != len(prints):
        fail("two results share a fingerprint")
    print(f"{len(prints)} distinct fingerprints")
    invocations = run.get("invocations", [])
    if len(invocations) != 1:
        fail(f"expected one invocation, got {len(invocations)}")
    invocation = invocations[0]
    if "executionSuccessful" not in invocation:
        fail("the invocation has no executionSuccessful")
    notifications = invocation.get("toolExecutionNotifications", [])
    if invocation["executionSuccessful"] == bool(notifications):
        fail("executionSuccessful must be false exactly when there are error notifications")
    print(f"invocation executionSuccessful={invocation['executionSuccessful']}")
    for notification in notifications:
        print(f"  notification {notification['level']}: {notification['message']['text']}")


def compare(before: dict, after: dict) -> None:
    old, new = fingerprints(before), fingerprints(after)
    if [code for code, _, _ in old] != [code for code, _, _ in new]:
        fail("the two runs report different rules")
    same = sum(1 for a, b in zip(old, new) if a[2] == b[2])
    shifts = sorted({b[1] - a[1] for a, b in zip(old, new)})
    print(f"{len(old)} results, {same} fingerprints unchanged, lines moved by {shifts}")


if __name__ == "__main__":
    if len(sys.argv) == 3:
        compare(load(sys.argv[1]), load(sys.argv[2]))
    else:
        summary(load(sys.argv[1]))
