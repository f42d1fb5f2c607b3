"""Sort the libraries in `ldd` output (stdin) by where they come from, for FileCheck:

    ldd FILE | classify_ldd.py PREFIX

`bundled NAME` for one under PREFIX/lib/gradlint/libs (the wheel's), `runtime NAME` for the
C/C++ runtime that every manylinux system has, `OUTSIDE NAME => PATH` for anything else,
`MISSING NAME` for one the loader does not find. Sorted, one a line.
"""
import os
import re
import sys

RUNTIME = re.compile(r"^(linux-vdso|ld-linux[-.\w]*|libc|libm|libdl|libpthread|librt|libutil|"
                     r"libresolv|libstdc\+\+|libgcc_s)\.so[.\d]*$")
bundled_dir = os.path.join(os.path.realpath(sys.argv[1]), "lib", "gradlint", "libs") + os.sep
lines = []
for line in sys.stdin:
    match = re.match(r"\s*(\S+)(?: => (.*?))?(?: \(0x[0-9a-f]+\))?$", line.rstrip("\n"))
    if not match:
        continue
    name, path = match.groups()
    name = os.path.basename(name)
    if path == "not found":
        lines.append(f"MISSING {name}")
    elif path and os.path.realpath(path).startswith(bundled_dir):
        lines.append(f"bundled {name}")
    elif RUNTIME.match(name):
        lines.append(f"runtime {name}")
    else:
        lines.append(f"OUTSIDE {name} => {path}")
print("\n".join(sorted(lines)))
