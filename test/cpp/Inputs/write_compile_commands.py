"""Writes a compile_commands.json for test/cpp/Inputs/project copied into ROOT.

    write_compile_commands.py ROOT MOCK_INCLUDE_DIR OUTPUT

The command names its include folder relative to its "directory", as CMake's do not but many
generators do: gradlint must compile from that directory.
"""
import json
import sys

root, mock, output = sys.argv[1:4]
json.dump([{
    "directory": root,
    "file": "src/trainer.cpp",
    "arguments": ["clang++", "-std=c++17", "-I" + mock, "-Iinclude", "-DTRAINER_FLAG",
                  "-c", "src/trainer.cpp", "-o", "trainer.o"],
}], open(output, "w"), indent=2)
