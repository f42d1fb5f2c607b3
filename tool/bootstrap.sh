#!/usr/bin/env bash
# Sets up a Debian 12 machine and builds gradlint into ./build (GRADLINT_BUILD_DIR to change).
#
#   bash tool/bootstrap.sh           the `gradlint` executable only: the Debian packages it
#                                    builds from (compiler, CMake, tree-sitter runtime, fmt,
#                                    JSON, CLI11, libgit2, toml++, xxHash, dtl, utf8proc,
#                                    jemalloc) and build/bin/gradlint. A few minutes.
#   bash tool/bootstrap.sh --tests   everything the tests need as well (LLVM/Clang 19 for the
#                                    C++ checker, LibTorch for the probe, lit/FileCheck, Bazel,
#                                    Neovim, Jupyter, pytest, pre-commit, ...) and the whole
#                                    build: what CI runs (.ci/run).
#
# Packages are installed only when missing (as root, or through sudo). CMake fetches the
# tree-sitter-python grammar with npm; the tests also fetch Microsoft's SARIF Multitool with npm. Safe to re-run: an up-to-date machine and build cost a
# few seconds.
set -euo pipefail
cd "$(dirname "$0")/.."
source tool/apt_packages.sh

tests=0
case "${1-}" in
  "") ;;
  --tests) tests=1 ;;
  *) echo "usage: bash tool/bootstrap.sh [--tests]" >&2; exit 2 ;;
esac

# What building the gradlint executable needs.
packages=(cmake ninja-build g++ pkg-config ca-certificates
          libtree-sitter-dev libfmt-dev nlohmann-json3-dev libcli11-dev libgit2-dev
          libtomlplusplus-dev libxxhash-dev libdtl-dev
          # Terminal width of wide characters (full output format).
          libutf8proc-dev
          # The allocator of the gradlint executable (CMakeLists.txt, tool/allocator.cpp).
          libjemalloc-dev)
if [ $tests = 1 ]; then
  packages+=(git python3 bc libgtest-dev llvm-19-tools pre-commit
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
          # libFuzzer and the sanitizer runtimes for Clang (the `fuzz` preset, test/fuzz).
          libclang-rt-19-dev
          # A real LSP client for `gradlint server`'s end-to-end test (test/lsp/neovim.test).
          neovim
          # The Debian packages (cpack, cmake/Install.cmake): dpkg-shlibdeps computes their
          # Depends; groff checks the generated man page (test/install).
          dpkg-dev groff-base
          # The wheel (cmake/Wheel.cmake): patchelf gives its bundled libraries an $ORIGIN
          # path; its tests install it into a venv (python3-venv, with pip's and setuptools'
          # wheels from Debian, offline).
          patchelf python3-venv python3-pip-whl python3-setuptools-whl python3-wheel-whl
          # Bazel 4.2.3 and its JDK, for the gradlint aspect's test (test/bazel).
          bazel-bootstrap)
fi
# The grammar comes from npm (CMakeLists.txt). Node.js may come from elsewhere than Debian; only
# install Debian's when there is no npm.
command -v npm >/dev/null 2>&1 || packages+=(nodejs npm)

install_missing_packages bootstrap "${packages[@]}"

build=${GRADLINT_BUILD_DIR:-build}
options=()
[ -z "${CMAKE_BUILD_TYPE-}" ] || options+=(-DCMAKE_BUILD_TYPE="$CMAKE_BUILD_TYPE")
if [ $tests = 1 ]; then
  # Explicit: a build folder first configured without these packages cached them as OFF.
  options+=(-DGRADLINT_BUILD_TESTS=ON -DGRADLINT_WITH_CPP=ON -DGRADLINT_WITH_PROBE=ON)
  [ -n "${CMAKE_BUILD_TYPE-}" ] || options+=(-DCMAKE_BUILD_TYPE=RelWithDebInfo)
elif [ ! -f "$build/CMakeCache.txt" ]; then
  # A new folder (one set up for the tests keeps its settings). -O2 without debug info: debug
  # info is a third of the compile time, and CMake's Release (-O3) compiles slower still.
  options+=(-DGRADLINT_BUILD_TESTS=OFF)
  [ -n "${CMAKE_BUILD_TYPE-}" ] ||
    options+=(-DCMAKE_BUILD_TYPE=Release "-DCMAKE_CXX_FLAGS_RELEASE=-O2 -DNDEBUG"
              "-DCMAKE_C_FLAGS_RELEASE=-O2 -DNDEBUG")
fi
cmake -S . -B "$build" -G Ninja "${options[@]}" >/dev/null
if [ $tests = 1 ]; then
  cmake --build "$build"
else
  cmake --build "$build" --target gradlint
fi
