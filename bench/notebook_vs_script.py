#!/usr/bin/env python3
"""Benchmark: a 500-cell notebook against the same code as one .py file.

    bench/notebook_vs_script.py [BUILD_DIR] [--cells N] [--runs R]

Writes a notebook of N code cells (default 500; a markdown cell between every two code cells,
and outputs on every code cell, as saved notebooks have) and a .py file holding the same code,
cells joined in order, then times `gradlint check` on each (best of R runs, default 9, the two
alternating) and prints both times and their ratio. Not a test: times vary by machine; the
ratio is the figure to compare (docs/notebooks.md).
"""
import json
import os
import subprocess
import sys
import tempfile
import time

# Cells a fine-tuning notebook is made of: setup, data, a model, training steps, evaluation
# under no_grad, a toggle that is restored, plotting. Names are numbered per copy.
CELLS = [
    "import torch\nimport torch.nn as nn\nfrom torch.utils.data import DataLoader, TensorDataset",
    "x{i} = torch.randn(64, 16)\ny{i} = torch.randint(0, 2, (64,))\n"
    "loader{i} = DataLoader(TensorDataset(x{i}, y{i}), batch_size=8)",
    "class Net{i}(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
    "        self.fc = nn.Linear(16, 2)\n\n    def forward(self, x):\n        return self.fc(x)\n\n"
    "model{i} = Net{i}()\nopt{i} = torch.optim.SGD(model{i}.parameters(), lr=0.1)",
    "def train_epoch{i}(model, opt, loader):\n    model.train()\n    for xb, yb in loader:\n"
    "        opt.zero_grad()\n        loss = nn.functional.cross_entropy(model(xb), yb)\n"
    "        loss.backward()\n        opt.step()\n    return loss.item()",
    "for epoch in range(2):\n    print(epoch, train_epoch{i}(model{i}, opt{i}, loader{i}))",
    "model{i}.eval()\nwith torch.no_grad():\n    preds{i} = model{i}(x{i}).argmax(dim=1)\n"
    "print((preds{i} == y{i}).float().mean())",
    "previous{i} = torch.is_grad_enabled()\ntorch.set_grad_enabled(False)\n"
    "features{i} = model{i}.fc.weight.clone()\ntorch.set_grad_enabled(previous{i})",
    "import matplotlib.pyplot as plt\nplt.plot(features{i}.flatten().tolist())\nplt.title('w{i}')",
]


def make(cells):
    code = []
    for n in range(cells):
        code.append(CELLS[n % len(CELLS)].format(i=n // len(CELLS)))
    notebook = {"cells": [], "metadata": {"language_info": {"name": "python"}},
                "nbformat": 4, "nbformat_minor": 5}
    for n, source in enumerate(code):
        if n % 2 == 0:
            notebook["cells"].append({"cell_type": "markdown", "id": f"m{n}", "metadata": {},
                                      "source": [f"## Step {n}\n", "Some explanation."]})
        notebook["cells"].append({
            "cell_type": "code", "execution_count": n + 1, "id": f"c{n}", "metadata": {},
            "outputs": [{"name": "stdout", "output_type": "stream", "text": [f"{n}\n"] * 5}],
            "source": source.splitlines(True)})
    return notebook, "\n".join(code) + "\n"


def best(command, runs):
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        times.append(time.perf_counter() - start)
    return min(times)


def main():
    args = sys.argv[1:]
    build = args[0] if args and not args[0].startswith("--") else "build"
    cells = int(args[args.index("--cells") + 1]) if "--cells" in args else 500
    runs = int(args[args.index("--runs") + 1]) if "--runs" in args else 9
    gradlint = os.path.join(build, "bin", "gradlint")
    with tempfile.TemporaryDirectory() as work:
        notebook, script = make(cells)
        nb_path = os.path.join(work, "train.ipynb")
        py_path = os.path.join(work, "train.py")
        with open(nb_path, "w") as f:
            json.dump(notebook, f, indent=1)
        with open(py_path, "w") as f:
            f.write(script)
        common = [gradlint, "check", "--no-respect-gitignore", "--output-format", "concise"]
        env_note = "GRADLINT_NO_CACHE=1"
        os.environ["GRADLINT_NO_CACHE"] = "1"
        nb_times, py_times = [], []
        for _ in range(runs):  # alternate, so a slow moment hits both
            nb_times.append(best(common + [nb_path], 1))
            py_times.append(best(common + [py_path], 1))
        nb, py = min(nb_times), min(py_times)
        size = os.path.getsize(nb_path), os.path.getsize(py_path)
        print(f"{cells} cells; notebook {size[0]} bytes, script {size[1]} bytes ({env_note})")
        print(f"notebook  {nb * 1000:8.1f} ms (best of {runs})")
        print(f"script    {py * 1000:8.1f} ms (best of {runs})")
        print(f"ratio     {nb / py:8.2f}x")


if __name__ == "__main__":
    main()
