"""Sends each version of a document to `gradlint server` (as a whole-text change, which the
server diffs against the last version) and compares the published diagnostics with `gradlint
check` of the same text: code, range, message, related locations and path must all agree.

    document_versions.py GRADLINT VERSIONS_FILE

VERSIONS_FILE holds the versions one after another, each starting with a `#### version: LABEL`
line (the line itself is not part of the text). Prints one line per version and exits 1 on the
first mismatch.
"""
import os
import pathlib
import sys
import tempfile

sys.dont_write_bytecode = True  # nothing written into the source tree
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from incremental_edits import Server, cli_findings, report_mismatch, server_findings  # noqa: E402

MARKER = "#### version: "


def versions(path):
    out = []
    for line in open(path, encoding="utf-8").read().splitlines(keepends=True):
        if line.startswith(MARKER):
            out.append([line[len(MARKER):].strip(), ""])
        elif out:
            out[-1][1] += line
    return out


def main():
    gradlint, versions_file = sys.argv[1], sys.argv[2]
    path = os.path.join(tempfile.mkdtemp(), "document.py")
    uri = "file://" + path
    server = Server(gradlint)
    server.send({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"capabilities": {}}})
    server.send({"jsonrpc": "2.0", "method": "initialized", "params": {}})
    for number, (label, text) in enumerate(versions(versions_file), start=1):
        if number == 1:
            server.send({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {
                "textDocument": {"uri": uri, "languageId": "python", "version": 1, "text": text}}})
        else:
            server.send({"jsonrpc": "2.0", "method": "textDocument/didChange", "params": {
                "textDocument": {"uri": uri, "version": number},
                "contentChanges": [{"text": text}]}})
        published = server_findings(server.wait_publish(number))
        expected = cli_findings(gradlint, path, text)
        if published != expected:
            report_mismatch(f"version {label}", expected, published)
            return 1
        codes = ",".join(sorted({finding[0] for finding in expected})) or "none"
        print(f"{label}: {len(expected)} finding(s) [{codes}], same as a fresh check")
    server.send({"jsonrpc": "2.0", "id": 2, "method": "shutdown"})
    server.send({"jsonrpc": "2.0", "method": "exit"})
    server.process.wait(timeout=10)
    return 0


if __name__ == "__main__":
    sys.exit(main())
