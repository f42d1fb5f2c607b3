#!/usr/bin/env bash
# Benchmark: gradlint against the bare tree-sitter parse of the same files, in one run.
#   test/bench/run.sh [BUILD_DIR] [CORPUS]     (default: build, Debian's python3-torch sources)
# Prints each measurement (best of RUNS) and the ratios. Not a test: numbers vary by machine.
set -euo pipefail
build=${1:-build}
corpus=${2:-/usr/lib/python3/dist-packages/torch}
runs=${RUNS:-3}
gradlint="$build/bin/gradlint"
baseline="$build/bin/gradlint-parse-baseline"
[ -x "$gradlint" ] && [ -x "$baseline" ] || { echo "build first: cmake --build $build" >&2; exit 2; }
[ -d "$corpus" ] || { echo "no corpus at $corpus (apt-get install python3-torch)" >&2; exit 2; }

files=$(mktemp)
trap 'rm -f "$files"' EXIT
find "$corpus" -name '*.py' -type f | sort >"$files"

best() { # best wall time in seconds of "$@" over $runs runs
  local best=""
  for _ in $(seq "$runs"); do
    local start end t
    start=$(date +%s.%N)
    "$@" >/dev/null 2>&1 || true
    end=$(date +%s.%N)
    t=$(echo "$end - $start" | bc -l)
    if [ -z "$best" ] || (( $(echo "$t < $best" | bc -l) )); then best=$t; fi
  done
  echo "$best"
}

parse_line=$("$baseline" "$files")
parse_s=$(echo "$parse_line" | sed -E 's/.*parse ([0-9.]+) s.*/\1/')
echo "corpus: $corpus ($(wc -l <"$files") files)"
echo "bare tree-sitter parse, 1 thread: $parse_line"
baseline_process=$(best "$baseline" "$files")
one=$(best "$gradlint" check --exit-zero -j1 --output-format concise "$corpus")
noprefilter=$(best "$gradlint" check --exit-zero -j1 --no-prefilter --output-format concise "$corpus")
all=$(best "$gradlint" check --exit-zero --output-format concise "$corpus")
printf 'baseline process (read + parse every file): %.3f s\n' "$baseline_process"
printf 'gradlint check, 1 thread:                   %.3f s  = %.2fx the bare parse\n' "$one" "$(echo "$one / $parse_s" | bc -l)"
printf 'gradlint check, 1 thread, no prefilter:     %.3f s  = %.2fx the bare parse\n' "$noprefilter" "$(echo "$noprefilter / $parse_s" | bc -l)"
printf 'gradlint check, all %s cores:                %.3f s  = %.2fx the bare parse, %.2fx faster than 1 thread\n' \
  "$(nproc)" "$all" "$(echo "$all / $parse_s" | bc -l)" "$(echo "$one / $all" | bc -l)"
