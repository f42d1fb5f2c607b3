"""Latency of `gradlint server`: time from sending textDocument/didChange to receiving the
publishDiagnostics for that version, on a generated 5,000-line Python file in which every
function uses the grad-mode API (so partial parsing skips nothing). Run by hand:

    /usr/bin/python3 bench/lsp_latency.py build/bin/gradlint [--lines 5000] [--edits 50] [--class]
    /usr/bin/python3 bench/lsp_latency.py build/bin/gradlint --file REPO/pkg/module.py [--root REPO]

--class makes the functions methods of one class (a long nn.Module or trainer). --file opens a
file of a real repository instead (its workspace folder is --root, by default the nearest folder
above it with a .git, pyproject.toml or setup.py), so the server works with that project's
context, as in an editor: the edits type into a new comment line in the middle of the file.

The server runs with --debounce-ms 0, so this measures analysis plus transport; an editor
also waits the debounce (50 ms by default) after the last keystroke.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time


def generate(lines, in_class=False):
    out = ["import torch", "", ""]
    # --class: the same functions as methods of one class (a long nn.Module or trainer).
    indent = "    " if in_class else ""
    if in_class:
        out.append("class Steps:")
    n = 0
    while len(out) < lines - 10:
        out += [indent + line if line else line for line in [
            f"def step_{n}(self, model, batch, flag):" if in_class else
            f"def step_{n}(model, batch, flag):",
            "    prev = torch.is_grad_enabled()",
            "    torch.set_grad_enabled(flag)",
            "    try:",
            "        out = model(batch)",
            "        loss = out.sum()",
            "    finally:",
            "        torch.set_grad_enabled(prev)",
            "    return loss",
            "",
        ]]
        n += 1
    # One leak, so every analysis has a finding to publish.
    out += ["def leak(model):", "    torch.set_grad_enabled(False)", "    return model", ""]
    return "\n".join(out) + "\n"


def project_root(path):
    """The nearest folder above `path` that holds a .git, pyproject.toml or setup.py."""
    folder = os.path.dirname(path)
    while True:
        if any(os.path.exists(os.path.join(folder, marker))
               for marker in (".git", "pyproject.toml", "setup.py")):
            return folder
        parent = os.path.dirname(folder)
        if parent == folder:
            return os.path.dirname(path)
        folder = parent


def resident_mb(pid):
    """Resident memory of a process now (Linux /proc), in MB."""
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


def cpu_seconds(pid):
    """User + system CPU time of a process (Linux /proc): load on a shared machine inflates wall
    time, not this."""
    with open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


class Server:
    def __init__(self, binary, extra=()):
        self.process = subprocess.Popen([binary, "server", "--debounce-ms", "0", *extra],
                                        stdin=subprocess.PIPE, stdout=subprocess.PIPE)

    def send(self, message):
        body = json.dumps(message).encode()
        self.process.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.process.stdin.flush()

    def receive(self):
        length = None
        while True:
            line = self.process.stdout.readline().strip()
            if not line:
                break
            name, _, value = line.partition(b":")
            if name.lower() == b"content-length":
                length = int(value)
        return json.loads(self.process.stdout.read(length))

    def wait_publish(self, version):
        """The next publishDiagnostics for `version`."""
        return self.wait_publish_traced(version)[0]

    def wait_publish_traced(self, version):
        """The next publishDiagnostics for `version`, and whether the server said (in its trace)
        that it is the document's own diagnostics, published before its context's."""
        early = False
        while True:
            message = self.receive()
            if message.get("method") == "$/logTrace":
                early = early or "without the context first" in message["params"]["message"]
            if (message.get("method") == "textDocument/publishDiagnostics"
                    and message["params"].get("version") == version):
                return message, early


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("gradlint")
    parser.add_argument("--lines", type=int, default=5000)
    parser.add_argument("--edits", type=int, default=50)
    parser.add_argument("--class", dest="in_class", action="store_true",
                        help="the functions as methods of one class")
    parser.add_argument("--file", help="a file of a real repository to open and edit")
    parser.add_argument("--root", help="its workspace folder (default: its project root)")
    parser.add_argument("--second", help="another file of the project, opened after the edits: "
                        "how long its diagnostics take when the server already holds a context")
    parser.add_argument("--server-arg", action="append", default=[],
                        help="an argument for `gradlint server` (repeatable): --no-warm-up")
    parser.add_argument("--after-warm-up", action="store_true",
                        help="open the file once the server has summarised the workspace "
                        "(its warm-up after `initialized`), and say how long that took")
    args = parser.parse_args()
    root = None
    if args.file:
        path = os.path.abspath(args.file)
        with open(path, encoding="utf-8") as source:
            text = source.read()
        root = os.path.abspath(args.root) if args.root else project_root(path)
        # A new comment line in the middle: each edit types one more character into it.
        lines = text.split("\n")
        middle = len(lines) // 2
        lines.insert(middle, "#")
        text = "\n".join(lines)
        uri = f"file://{path}"
    else:
        text = generate(args.lines, args.in_class)
        middle = text.count("\n") // 2
        folder = tempfile.mkdtemp()
        uri = f"file://{folder}/bench.py"
    server = Server(args.gradlint, args.server_arg)
    # The trace says which publication holds the document's own diagnostics only.
    params = {"capabilities": {}, "trace": "messages"}
    if root:
        params["rootUri"] = f"file://{root}"
        params["workspaceFolders"] = [{"uri": f"file://{root}", "name": os.path.basename(root)}]
    server.send({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": params})
    server.receive()
    server.send({"jsonrpc": "2.0", "method": "initialized", "params": {}})
    warm_up_ms = None
    if args.after_warm_up:
        start = time.perf_counter()
        while True:
            message = server.receive()
            said = message.get("params", {}).get("message", "")
            if message.get("method") == "$/logTrace" and "found in" in said:
                print(said.split(": ", 1)[-1])
            if message.get("method") == "$/logTrace" and ("warm-up done" in said
                                                         or "no warm-up" in said):
                break
        warm_up_ms = (time.perf_counter() - start) * 1000
    start = time.perf_counter()
    server.send({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument": {
        "uri": uri, "languageId": "python", "version": 1, "text": text}}})
    published, early = server.wait_publish_traced(1)
    open_ms = (time.perf_counter() - start) * 1000
    full_ms = None
    if early:
        # The diagnostics with the context follow.
        published = server.wait_publish(1)
        full_ms = (time.perf_counter() - start) * 1000
    timings = []
    cpu_before = cpu_seconds(server.process.pid)
    rss_before = resident_mb(server.process.pid)
    for version in range(2, args.edits + 2):
        # Type one character into a comment in the middle of the file, as a user would.
        change = {"range": {"start": {"line": middle, "character": 0},
                            "end": {"line": middle, "character": 0}}, "text": "#"}
        start = time.perf_counter()
        server.send({"jsonrpc": "2.0", "method": "textDocument/didChange", "params": {
            "textDocument": {"uri": uri, "version": version}, "contentChanges": [change]}})
        server.wait_publish(version)
        timings.append((time.perf_counter() - start) * 1000)
    cpu_ms = (cpu_seconds(server.process.pid) - cpu_before) * 1000 / len(timings)
    rss_after = resident_mb(server.process.pid)
    second_ms = None
    if args.second:
        second = os.path.abspath(args.second)
        with open(second, encoding="utf-8") as source:
            second_text = source.read()
        start = time.perf_counter()
        server.send({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {
            "textDocument": {"uri": f"file://{second}", "languageId": "python", "version": 1,
                             "text": second_text}}})
        # Its diagnostics with the context: those after the trace of its collection.
        collected = False
        while True:
            message = server.receive()
            if message.get("method") == "$/logTrace":
                said = message["params"]["message"]
                collected = collected or (second in said and "context collected" in said)
            if (collected and message.get("method") == "textDocument/publishDiagnostics"
                    and message["params"]["uri"] == f"file://{second}"):
                break
        second_ms = (time.perf_counter() - start) * 1000
    server.send({"jsonrpc": "2.0", "id": 2, "method": "shutdown"})
    server.send({"jsonrpc": "2.0", "method": "exit"})
    server.process.wait(timeout=10)
    timings.sort()
    if args.file:
        print(f"file: {args.file} in {root}, {len(text)} bytes; "
              f"{len(published['params']['diagnostics'])} finding(s)")
    else:
        print(f"file: {args.lines} lines{' (one class)' if args.in_class else ''}, "
              f"{len(text)} bytes; {len(published['params']['diagnostics'])} finding(s)")
    if warm_up_ms is not None:
        print(f"initialized -> workspace warm-up done: {warm_up_ms:.0f} ms")
    if full_ms is None:
        print(f"didOpen -> publishDiagnostics: {open_ms:.1f} ms")
    else:
        print(f"didOpen -> publishDiagnostics: {open_ms:.1f} ms (the file alone), "
              f"{full_ms:.1f} ms (with its context)")
    if second_ms is not None:
        print(f"second file opened -> publishDiagnostics: {second_ms:.1f} ms ({args.second})")
    print(f"didChange -> publishDiagnostics over {len(timings)} edits: "
          f"median {statistics.median(timings):.1f} ms, "
          f"p90 {timings[int(len(timings) * 0.9) - 1]:.1f} ms, max {timings[-1]:.1f} ms; "
          f"server CPU {cpu_ms:.1f} ms per edit")
    print(f"server memory (resident): {rss_before:.1f} MB before the edits, "
          f"{rss_after:.1f} MB after them")
    return 0


if __name__ == "__main__":
    sys.exit(main())
