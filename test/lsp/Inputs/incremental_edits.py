"""Random edits through `gradlint server` (incremental parsing: each parse reuses the last tree
of the document) against `gradlint check` of the same text (a fresh parse): after every edit
the published diagnostics must be the same findings (code, range, message, related ranges).

    incremental_edits.py GRADLINT SEED_FILE... [--edits N] [--seed S]

Prints `edits: N, findings seen: M, mismatches: 0` and exits 1 on the first mismatch.
"""
import argparse
import json
import os
import pathlib
import random
import subprocess
import sys
import tempfile

# The benchmark's client: frames messages and waits for a version's diagnostics.
sys.dont_write_bytecode = True  # nothing written into the source tree
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3] / "bench"))
from lsp_latency import Server  # noqa: E402

SNIPPETS = [
    "torch.set_grad_enabled(False)\n", "    ", "\n", "(", ")", ":", "'''", "#", "é", "x = 1\n",
    "with torch.no_grad():\n", "def helper():\n", "class K:\n", "loss.backward()\n",
    "    opt.step()\n", "import torch\n", "model.eval()\n", "prev = torch.is_grad_enabled()\n",
    "try:\n", "finally:\n", "\"", "\\\n", "@torch.no_grad()\n", "return\n", "\t",
]


def utf16_position(text, offset):
    line = text.count("\n", 0, offset)
    start = text.rfind("\n", 0, offset) + 1
    return {"line": line, "character": len(text[start:offset].encode("utf-16-le")) // 2}


def cli_findings(gradlint, path, text):
    run = subprocess.run([gradlint, "check", "--no-cache", "--exit-zero", "--output-format", "json",
                          "--stdin-filename", path, "-"], input=text.encode(), capture_output=True)
    if run.returncode != 0:
        sys.stderr.write(run.stderr.decode())
        sys.exit(2)
    def span(entry):  # 0-based, as the server's; the fixtures' columns are all in the BMP
        return (entry["location"]["row"] - 1, entry["location"]["column"] - 1,
                entry["end_location"]["row"] - 1, entry["end_location"]["column"] - 1)

    def witness(d):  # the server leaves out a one-step path at the finding itself
        steps = [(w["row"] - 1, w["column"] - 1, w["detail"]) for w in d.get("witness") or []]
        return () if len(steps) == 1 and steps[0][:2] == span(d)[:2] else tuple(steps)
    return sorted((d["code"], span(d), d["message"],
                   tuple(sorted(span(r) for r in d.get("related") or [])), witness(d))
                  for d in json.loads(run.stdout))


def server_findings(published):
    def span(range_):
        return (range_["start"]["line"], range_["start"]["character"],
                range_["end"]["line"], range_["end"]["character"])

    def is_step(related):
        return related["message"].startswith("path ")
    return sorted((d["code"], span(d["range"]), d["message"],
                   tuple(sorted(span(r["location"]["range"])
                                for r in d.get("relatedInformation") or [] if not is_step(r))),
                   tuple((r["location"]["range"]["start"]["line"],
                          r["location"]["range"]["start"]["character"],
                          r["message"].split(": ", 1)[1])
                         for r in d.get("relatedInformation") or [] if is_step(r)))
                  for d in published["params"]["diagnostics"])


def report_mismatch(label, expected, published):
    print(f"mismatch after {label}:")
    for finding in sorted(set(expected) - set(published)):
        print("  only from a fresh parse:", finding)
    for finding in sorted(set(published) - set(expected)):
        print("  only from the server:", finding)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("gradlint")
    parser.add_argument("seeds", nargs="+")
    parser.add_argument("--edits", type=int, default=150)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    if os.environ.get("GRADLINT_TEST_SANITIZED"):
        args.edits = max(1, args.edits // 4)  # lit.cfg.py: a sanitized build
    rng = random.Random(args.seed)
    text = "".join(open(seed, encoding="utf-8").read() for seed in args.seeds)
    folder = tempfile.mkdtemp()
    path = os.path.join(folder, "edited.py")
    uri = "file://" + path
    server = Server(args.gradlint)
    server.send({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"capabilities": {}}})
    server.send({"jsonrpc": "2.0", "method": "initialized", "params": {}})
    server.send({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument": {
        "uri": uri, "languageId": "python", "version": 1, "text": text}}})
    seen = 0
    for version in range(1, args.edits + 2):
        if version > 1:
            start = rng.randrange(len(text) + 1)
            end = start if rng.random() < 0.6 else min(len(text), start + rng.randrange(40))
            inserted = rng.choice(SNIPPETS) if rng.random() < 0.85 else ""
            change = {"range": {"start": utf16_position(text, start),
                                "end": utf16_position(text, end)}, "text": inserted}
            text = text[:start] + inserted + text[end:]
            server.send({"jsonrpc": "2.0", "method": "textDocument/didChange", "params": {
                "textDocument": {"uri": uri, "version": version}, "contentChanges": [change]}})
        published = server_findings(server.wait_publish(version))
        expected = cli_findings(args.gradlint, path, text)
        seen += len(expected)
        if published != expected:
            report_mismatch(f"edit {version - 1}", expected, published)
            return 1
    server.send({"jsonrpc": "2.0", "id": 2, "method": "shutdown"})
    server.send({"jsonrpc": "2.0", "method": "exit"})
    server.process.wait(timeout=10)
    print(f"edits: {args.edits}, findings seen: {seen}, mismatches: 0")
    return 0


if __name__ == "__main__":
    sys.exit(main())
