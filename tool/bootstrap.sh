#!/usr/bin/env bash
# Sets up a fresh Debian 12 machine and builds gradlint into ./build:
#   - Debian packages (compiler, CMake, tree-sitter runtime, fmt, JSON, CLI11, gtest, libgit2,
#     toml++ for configuration files, xxHash for SARIF fingerprints, dtl for --diff, lit +
#     FileCheck from llvm-19-tools, pre-commit for the hook's test, LLVM/Clang 19 and
#     clang-tidy-19 for the C++ checker, libtorch-dev for its end-to-end test), installed only
#     when missing;
#   - from npm, which CMake runs at configure time: the tree-sitter-python grammar, and
#     Microsoft's SARIF Multitool that validates the SARIF output in the tests;
#   - the build itself (gradlint, its tests, the benchmark baseline).
# Safe to re-run: an up-to-date machine and build cost a few seconds.
set -euo pipefail
cd "$(dirname "$0")/.."
source tool/apt_packages.sh

packages=(cmake ninja-build g++ pkg-config git ca-certificates python3 bc
          libtree-sitter-dev libfmt-dev nlohmann-json3-dev libcli11-dev libgtest-dev
          libgit2-dev llvm-19-tools libtomlplusplus-dev libxxhash-dev libdtl-dev pre-commit
          # The C++ checker (Clang 19 LibTooling), its clang-tidy plugin and the clang-tidy-19
          # that tests it, and LibTorch's headers for the end-to-end C++ test.
          llvm-19-dev libclang-19-dev libclang-cpp19-dev clang-19 clang-tidy-19 libtorch-dev
          # The runtime probe's tests: Python scripts under the tracer (/usr/bin/python3), and
          # addr2line (binutils) to name C++ toggle sites.
          python3-torch binutils
          # ... tracing a pytest suite, its xdist workers and a notebook run by nbconvert
          # (test/probe/pytest_*.test, notebook.test; about 31 MB, 55 small packages).
          python3-pytest python3-pytest-xdist jupyter-nbconvert python3-ipykernel
          # Notebook fixes are checked against Jupyter's own schema (test/notebook).
          python3-nbformat
          # Terminal width of wide characters (full output format).
          libutf8proc-dev
          # The allocator of the gradlint executable (CMakeLists.txt, tool/allocator.cpp).
          libjemalloc-dev
          # libFuzzer and the sanitizer runtimes for Clang (the `fuzz` preset, test/fuzz).
          libclang-rt-19-dev
          # A real LSP client for `gradlint server`'s end-to-end test (test/lsp/neovim.test).
          neovim
          # The Debian packages (cpack, cmake/Install.cmake): dpkg-shlibdeps computes their
          # Depends; groff checks the generated man page (test/install).
          dpkg-dev groff-base
          # Bazel 4.2.3 and its JDK, for the gradlint aspect's test (test/bazel).
          bazel-bootstrap)
# Node.js may come from elsewhere than Debian; only install Debian's when there is no npm.
command -v npm >/dev/null 2>&1 || packages+=(nodejs npm)

install_missing_packages bootstrap "${packages[@]}"

build=${GRADLINT_BUILD_DIR:-build}
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=${CMAKE_BUILD_TYPE:-RelWithDebInfo} >/dev/null
cmake --build "$build"
