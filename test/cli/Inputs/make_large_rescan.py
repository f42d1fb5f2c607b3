"""Writes a package whose large module (a class of 600 methods, each naming a marker, ~52 KB
parsed in the first pass) calls a helper from another module in a method that names no marker:
that method is parsed only when the summaries' rescan adds it, and the engine then lowers the
file again beside its kept lowering (files parsed in part from 32 KB on keep theirs). Another
method calls that one: the same rescan takes it in, as a caller of what it adds in a large file.
A nested class at the end has another such method after its last chosen one.

    make_large_rescan.py OUT_DIR
"""
import os
import sys

out = sys.argv[1]
os.makedirs(os.path.join(out, "pkg"), exist_ok=True)
open(os.path.join(out, "pkg", "__init__.py"), "w").close()
with open(os.path.join(out, "pkg", "helpers.py"), "w") as f:
    f.write("import torch\n\n\ndef leaky_helper():\n    torch.set_grad_enabled(False)\n")
# `enable_grad`: a `no_grad` block alone would not make its method worth parsing.
lines = ["import torch", "from pkg.helpers import leaky_helper", "", "", "class Big:"]
for n in range(600):
    lines += [f"    def method_{n}(self, x):", "        with torch.enable_grad():",
              f"            return x + {n}", ""]
    if n == 100:  # calls the method below, which calls the helper: chosen with it (a caller)
        lines += ["    def calls_uses_helper(self):", "        self.uses_helper()", ""]
    if n == 300:  # in the middle, so that kept parts come before and after it
        lines += ["    def uses_helper(self):", "        leaky_helper()", "        return 1", ""]
# And at the end of a nested class, after its last chosen method: the rescan's new range starts
# where the old tree's class ended, and must still land inside the class.
lines += ["class Outer:", "    class Inner:", "        def method(self, x):",
          "            with torch.enable_grad():", "                return x", "",
          "        def last_uses_helper(self):", "            leaky_helper()", ""]
with open(os.path.join(out, "pkg", "big.py"), "w") as f:
    f.write("\n".join(lines) + "\n")
