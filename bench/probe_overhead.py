"""Overhead of the runtime probe: a loop that toggles grad mode and a small training loop, each
run with and without the tracer (best of N, interleaved), through Debian's python3-torch.

    /usr/bin/python3 bench/probe_overhead.py BUILD [--repeat 3]

Prints each workload's times and the ratio traced / plain. Timing is inside the process (the
workload only), so the interpreter's and torch's start-up, the same with or without the probe,
does not dilute the ratio.
"""
import argparse
import os
import subprocess
import sys

WORKLOADS = {
    "toggle loop (200k no_grad blocks)": """
import time, torch
start = time.perf_counter()
for _ in range(200_000):
    with torch.no_grad():
        pass
print(time.perf_counter() - start)
""",
    "training loop (MLP 256 wide, 1000 steps, a no_grad eval each step)": """
import time, torch
torch.manual_seed(0)
torch.set_num_threads(1)
model = torch.nn.Sequential(torch.nn.Linear(256, 256), torch.nn.ReLU(), torch.nn.Linear(256, 1))
opt = torch.optim.SGD(model.parameters(), lr=1e-3)
batch = torch.randn(64, 256)
start = time.perf_counter()
for _ in range(1000):
    loss = model(batch).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    with torch.no_grad():
        model(batch)
print(time.perf_counter() - start)
""",
}


def best_time(code, env, repeat):
    times = []
    for _ in range(repeat):
        out = subprocess.run(["/usr/bin/python3", "-c", code], env=env, check=True,
                             capture_output=True, text=True).stdout
        times.append(float(out.strip().splitlines()[-1]))
    return min(times)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("build")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    library = os.path.abspath(os.path.join(args.build, "lib", "libgradlint_probe.so"))
    if not os.path.exists(library):
        sys.exit(f"{library} not found: build with GRADLINT_WITH_PROBE")
    plain = dict(os.environ)
    traced = dict(os.environ, LD_PRELOAD=library, GRADLINT_PROBE_OUTPUT="")
    for name, code in WORKLOADS.items():
        # Interleaved, so that load from other processes hits both sides alike.
        base = probed = float("inf")
        for _ in range(args.repeat):
            base = min(base, best_time(code, plain, 1))
            probed = min(probed, best_time(code, traced, 1))
        print(f"{name}: plain {base:.3f} s, under the probe {probed:.3f} s, "
              f"ratio {probed / base:.3f}")


if __name__ == "__main__":
    main()
