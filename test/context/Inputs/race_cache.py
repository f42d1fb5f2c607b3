"""Two gradlint runs over different files of one project share a cache folder, and race on
its distribution entries: the runs ask different names of the same installed package, so each
may write the entry the other is reading, or grow it while the other replaces it.

    race_cache.py ROUNDS CACHE_DIR -- COMMAND_A... -- COMMAND_B...

Each command is first run alone with --no-cache, for its reference report and status. Then,
ROUNDS times: the result and distribution entries and context snapshots are removed (so both
runs find the context and fill the distribution cache), and the two start with a delay of 0
to 40 ms between them, which one first alternating by round; in odd rounds the distribution
entries are kept, so one run's entry is read while the other grows it. Every run must exit
with its reference status, print its reference report and nothing on stderr; the cache's
entries must be whole JSON at the end. Prints "ok: N rounds" or the first failure.
"""
import glob
import json
import os
import random
import subprocess
import sys
import time


def split_commands(argv):
    first = argv.index("--")
    second = argv.index("--", first + 1)
    return argv[first + 1:second], argv[second + 1:]


def clear(cache, keep_distributions):
    patterns = ["run-*.json", "context/collection-*.txt"]
    if not keep_distributions:
        patterns.append("distributions/*")
    for pattern in patterns:
        for path in glob.glob(os.path.join(cache, pattern)):
            os.remove(path)


def main() -> int:
    rounds, cache = int(sys.argv[1]), sys.argv[2]
    commands = split_commands(sys.argv)
    references = []
    for command in commands:
        done = subprocess.run(command + ["--no-cache"], capture_output=True)
        references.append((done.returncode, done.stdout))
    randomness = random.Random(1234)
    for round_ in range(rounds):
        clear(cache, keep_distributions=round_ % 2 == 1)
        order = [0, 1] if round_ % 2 == 0 else [1, 0]
        processes = {}
        for index in order:
            processes[index] = subprocess.Popen(commands[index] + ["--cache-dir", cache],
                                                stdout=subprocess.PIPE, stderr=subprocess.PIPE)
            time.sleep(randomness.uniform(0, 0.04))
        for index, process in processes.items():
            out, err = process.communicate(timeout=120)
            status, report = references[index]
            if process.returncode < 0:
                print(f"FAIL round {round_}: run {index} killed by signal {-process.returncode}")
                return 1
            if process.returncode != status or out != report or err:
                print(f"FAIL round {round_}: run {index} exit {process.returncode} (expected "
                      f"{status})\n--- report:\n{out.decode(errors='replace')}--- expected:\n"
                      f"{report.decode(errors='replace')}--- stderr:\n"
                      f"{err.decode(errors='replace')}")
                return 1
    for path in glob.glob(os.path.join(cache, "distributions", "*")):
        if path.endswith(".json"):
            with open(path) as entry:
                json.load(entry)  # a torn entry fails here
    entries = len(glob.glob(os.path.join(cache, "distributions", "*.json")))
    print(f"ok: {rounds} rounds, {entries} distribution entries")
    return 0


if __name__ == "__main__":
    sys.exit(main())
