"""A scripted LSP client for the `gradlint server` tests: frames messages, sends a script of
steps, and prints the messages it waits for as JSON lines (keys sorted) for FileCheck.

    lsp_client.py [--dir DIR] SCRIPT -- SERVER COMMAND...

Each script line is one step (blank lines and lines starting with `#` are skipped); `${DIR}`
is replaced with DIR and `${URI}` with its file:// URI:

    send JSON             frame and send one message
    raw PYTHON-BYTES      send bytes as they are, e.g. raw b"Content-Length: 3\\r\\n\\r\\n{]}"
    response ID           wait for the response to request ID and print it
    notification METHOD   wait for the next notification METHOD (or server request) and print it
    quiet METHOD MS       wait MS milliseconds; print `quiet METHOD` when no METHOD came, else it
    write PATH TEXT       write TEXT (a JSON string) to PATH
    close                 close the server's stdin
    exit-code             wait for the server to exit and print `exit-code N`

Messages nobody waits for are kept for later steps and otherwise dropped. Every wait has a
timeout: on expiry the client prints `timeout: ...`, kills the server and exits 1.
"""
import json
import os
import queue
import subprocess
import sys
import threading
import time

TIMEOUT_S = 30


def frame(body: bytes) -> bytes:
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


def read_messages(stream, inbox):
    """Parses frames from the server's stdout into `inbox`; None marks the end."""
    while True:
        length = None
        while True:
            line = stream.readline()
            if not line:
                inbox.put(None)
                return
            line = line.strip()
            if not line:
                break
            name, _, value = line.partition(b":")
            if name.strip().lower() == b"content-length":
                length = int(value.strip())
        if length is None:
            inbox.put({"client-error": "a frame without Content-Length"})
            continue
        body = stream.read(length)
        try:
            inbox.put(json.loads(body))
        except ValueError:
            inbox.put({"client-error": "invalid JSON from the server", "body": body.decode()})


class Session:
    def __init__(self, command):
        self.server = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        self.inbox = queue.Queue()
        self.pending = []  # received, not yet claimed by a step
        self.ended = False
        threading.Thread(target=read_messages, args=(self.server.stdout, self.inbox),
                         daemon=True).start()

    def fail(self, why):
        print("timeout: " + why, flush=True)
        self.server.kill()
        sys.exit(1)

    def send(self, data: bytes):
        try:
            self.server.stdin.write(data)
            self.server.stdin.flush()
        except BrokenPipeError:
            print("server closed its input", flush=True)

    def claim(self, matches, deadline):
        """The first message `matches` accepts, from those kept or arriving before `deadline`."""
        for index, message in enumerate(self.pending):
            if matches(message):
                return self.pending.pop(index)
        while not self.ended:
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            try:
                message = self.inbox.get(timeout=left)
            except queue.Empty:
                return None
            if message is None:
                self.ended = True
                break
            if matches(message):
                return message
            self.pending.append(message)
        return None


def show(message):
    print(json.dumps(message, sort_keys=True, ensure_ascii=False), flush=True)


def main():
    args = sys.argv[1:]
    directory = ""
    if args[:1] == ["--dir"]:
        directory = os.path.abspath(args[1])
        args = args[2:]
    script, separator, command = args[0], args[1], args[2:]
    assert separator == "--", __doc__
    session = Session(command)
    with open(script, encoding="utf-8") as lines:
        for number, line in enumerate(lines, 1):
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            line = line.replace("${URI}", "file://" + directory).replace("${DIR}", directory)
            verb, _, rest = line.partition(" ")
            deadline = time.monotonic() + TIMEOUT_S
            if verb == "send":
                session.send(frame(json.dumps(json.loads(rest)).encode()))
            elif verb == "raw":
                session.send(eval(rest))  # a bytes literal from the test's own script
            elif verb == "response":
                wanted = json.loads(rest)
                message = session.claim(
                    lambda m: "method" not in m and m.get("id") == wanted, deadline)
                if message is None:
                    session.fail(f"line {number}: response {rest}")
                show(message)
            elif verb == "notification":
                message = session.claim(lambda m: m.get("method") == rest, deadline)
                if message is None:
                    session.fail(f"line {number}: notification {rest}")
                show(message)
            elif verb == "quiet":
                method, milliseconds = rest.split()
                message = session.claim(lambda m: m.get("method") == method,
                                        time.monotonic() + int(milliseconds) / 1000)
                if message is None:
                    print("quiet " + method, flush=True)
                else:
                    show(message)
            elif verb == "write":
                path, _, text = rest.partition(" ")
                with open(path, "w", encoding="utf-8") as out:
                    out.write(json.loads(text))
            elif verb == "close":
                session.server.stdin.close()
            elif verb == "exit-code":
                try:
                    print("exit-code %d" % session.server.wait(timeout=TIMEOUT_S), flush=True)
                except subprocess.TimeoutExpired:
                    session.fail(f"line {number}: the server did not exit")
            else:
                raise SystemExit(f"{script}:{number}: unknown step `{verb}`")
    if session.server.poll() is None:
        session.server.kill()
        session.server.wait()
    return 0


if __name__ == "__main__":
    sys.exit(main())
