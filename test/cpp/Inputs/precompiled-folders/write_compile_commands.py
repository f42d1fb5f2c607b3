"""Writes ROOT/compile_commands.json for ROOT/p*/src/train.cpp (precompiled-folders.test).

    write_compile_commands.py ROOT MOCK_INCLUDE_DIR

Each project is built in its own folder (ROOT/pN/build) with its own -I folder, given relative
to it; the third-party folders are the same absolute ones.
"""
import json
import os
import sys

root, mock = sys.argv[1:3]
projects = sorted(p for p in os.listdir(root) if p.startswith("p"))
json.dump([{
    "directory": os.path.join(root, project, "build"),
    "file": "../src/train.cpp",
    "arguments": ["clang++", "-std=c++17", "-isystem", mock, "-isystem",
                  os.path.join(root, "vendor"), "-I../include", "-c", "../src/train.cpp",
                  "-o", "train.o"],
} for project in projects], open(os.path.join(root, "compile_commands.json"), "w"), indent=2)
