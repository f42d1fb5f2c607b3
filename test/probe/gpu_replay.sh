#!/bin/bash
# Replays findings on a CUDA GPU (Debian's LibTorch is CPU-only, so CI never does): builds
# gradlint-probe-replay against the LibTorch of a pip-installed PyTorch, next to a given
# `gradlint`, then checks what test/probe/replay_cuda.test and check_confirm.test check, with
# grep instead of lit and FileCheck (a GPU machine may have neither).
#
#   test/probe/gpu_replay.sh BIN_DIR NLOHMANN_JSON_INCLUDE_DIR OUT_DIR
#
# BIN_DIR holds a built `gradlint`; python3 must import a CUDA build of torch; cmake, ninja and
# nvcc must be on PATH. Prints one line per check and exits 1 if any fails.
set -uo pipefail
src=$(cd "$(dirname "$0")/../.." && pwd)
bin=$(cd "$1" && pwd)
json_include=$(cd "$2" && pwd)
out=$3
mkdir -p "$out"
torch_prefix=$(python3 -c 'import torch.utils; print(torch.utils.cmake_prefix_path)') || exit 1
python3 -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda,
      "device", torch.cuda.get_device_name(0) if torch.cuda.is_available() else None)'

build=$(mktemp -d)
cat >"$build/CMakeLists.txt" <<CMAKE
cmake_minimum_required(VERSION 3.20)
project(gradlint_gpu_replay CXX)
set(CMAKE_CXX_STANDARD 20)
set(CMAKE_CXX_STANDARD_REQUIRED ON)
find_package(Torch REQUIRED)
add_executable(gradlint-probe-replay "$src/tool/probe/replay_main.cpp" "$src/tool/probe/replay.cpp")
target_include_directories(gradlint-probe-replay PRIVATE "$src" "$json_include")
target_link_libraries(gradlint-probe-replay PRIVATE \${TORCH_LIBRARIES})
CMAKE
if ! cmake -S "$build" -B "$build/out" -G Ninja -DCMAKE_BUILD_TYPE=Release \
     -DCMAKE_PREFIX_PATH="$torch_prefix" >"$out/cmake.log" 2>&1 ||
   ! ninja -C "$build/out" >"$out/build.log" 2>&1; then
  echo "FAIL: building gradlint-probe-replay against $torch_prefix (see cmake.log, build.log)"
  tail -30 "$out/cmake.log" "$out/build.log"
  exit 1
fi
cp "$build/out/gradlint-probe-replay" "$bin/"

failed=0
check() { # LABEL FILE PATTERN: FILE must contain a line matching PATTERN (extended regex)
  if grep -Eq -- "$3" "$2"; then echo "ok: $1"; else echo "FAIL: $1"; failed=1; fi
}
absent() {
  if grep -Eq -- "$3" "$2"; then echo "FAIL: $1"; failed=1; else echo "ok: $1"; fi
}

"$bin/gradlint-probe-replay" --cuda-available >"$out/cuda_available.txt" 2>&1
echo "replayer --cuda-available: exit $? ($(tr '\n' ' ' <"$out/cuda_available.txt"))"

# test/probe/replay_cuda.test
"$bin/gradlint" check --no-cache --no-respect-gitignore --output-format json \
  "$src/test/rules/GL201/positive.py" "$src/test/rules/GL101/positive.py" >"$out/findings.json"
"$bin/gradlint" probe replay "$out/findings.json" --device cpu,cuda >"$out/replay.txt" 2>&1
echo "probe replay: exit $?"
check "GL101 confirmed on cuda" "$out/replay.txt" "GL101 cuda confirmed"
check "GL201 needs cuda on the cpu" "$out/replay.txt" "GL201 cpu needs-cuda"
check "GL201 confirmed on cuda" "$out/replay.txt" "GL201 cuda confirmed"
absent "nothing refuted" "$out/replay.txt" "refuted"
absent "no error" "$out/replay.txt" "error"

# test/probe/check_confirm.test, the CUDA half
"$bin/gradlint" check --no-cache --no-respect-gitignore --confirm --confirm-devices cpu,cuda \
  --output-format concise "$src/test/rules/GL101/positive.py" >"$out/confirm.txt" 2>&1
check "check --confirm: GL101 confirmed on cpu and cuda" "$out/confirm.txt" \
  "GL101 .*\[runtime: cpu confirmed, cuda confirmed\]"
exit $failed
