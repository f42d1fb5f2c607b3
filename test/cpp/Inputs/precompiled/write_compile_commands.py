"""Writes ROOT/build/compile_commands.json for the sources of ROOT/src (precompiled-headers.test).

    write_compile_commands.py ROOT MOCK_INCLUDE_DIR

The mock <torch/torch.h> and vendor/ are third-party (-isystem); include/ is the project's.
"""
import json
import os
import sys

root, mock = sys.argv[1:3]
sources = sorted(f for f in os.listdir(os.path.join(root, "src")) if f.endswith(".cpp"))
json.dump([{
    "directory": root,
    "file": "src/" + name,
    "arguments": ["clang++", "-std=c++17", "-isystem", mock, "-isystem", "vendor", "-Iinclude",
                  "-c", "src/" + name, "-o", name + ".o"],
} for name in sources], open(os.path.join(root, "build", "compile_commands.json"), "w"), indent=2)
