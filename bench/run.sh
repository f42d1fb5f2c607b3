#!/usr/bin/env bash
# Benchmark: gradlint against the bare tree-sitter-python parse and against its peers (flake8,
# ruff's WebAssembly build) on the same files, in one run, then on a synthetic tree SCALE times
# larger (copies of the corpus under /tmp) to show how the cost grows. Not a test: numbers vary
# by machine.
#   bench/setup.sh                       # once: flake8, GNU time, python3-torch, ruff-wasm
#   bench/run.sh [BUILD_DIR] [CORPUS]    # default: build, Debian's python3-torch sources
# Environment: RUNS (best of, default 3; LARGE_RUNS on the synthetic tree, default 1), SCALE
# (default 10; 0: no synthetic tree),
# FLAKE8_LARGE=1 (also run flake8 on the synthetic tree: minutes), THREADS (default: nproc).
# Each row: wall time (best of RUNS; flake8 once), CPU time (user + system) of that run, lines
# per second (wall), peak RSS, and the ratios to the bare parse of the same files (1 thread,
# parse only, measured in the same run) in wall and in CPU time. On a shared machine the CPU
# ratio is the steadier one; with threads, CPU time adds up over the cores.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-build}
corpus=${2:-/usr/lib/python3/dist-packages/torch}
runs=${RUNS:-3}
scale=${SCALE:-10}
threads=${THREADS:-$(nproc)}
gradlint="$build/bin/gradlint"
baseline="$build/bin/gradlint-parse-baseline"
deps="$here/.deps"
[ -x "$gradlint" ] && [ -x "$baseline" ] ||
  { echo "build first: cmake --build $build --target gradlint gradlint-parse-baseline" >&2; exit 2; }
[ -d "$corpus" ] || { echo "no corpus at $corpus (bench/setup.sh installs python3-torch)" >&2; exit 2; }
[ -x /usr/bin/time ] && command -v flake8 >/dev/null && command -v node >/dev/null &&
  [ -d "$deps/node_modules/@astral-sh/ruff-wasm-nodejs" ] ||
  { echo "run bench/setup.sh first (GNU time, flake8, node, ruff-wasm)" >&2; exit 2; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# measure N CMD...: the run with the best wall time of N; sets wall, cpu and peak_mb. Wall time
# is taken to the millisecond around GNU time (whose %e has 10 ms steps: too coarse for a warm
# run of ~40 ms); CPU time and peak memory come from GNU time.
measure() {
  local n=$1; shift
  wall=""; cpu=""; peak_mb=""
  for _ in $(seq "$n"); do
    local start end
    start=$(date +%s%N)
    /usr/bin/time -f '%e %U %S %M' -o "$work/time" "$@" >"$work/out" 2>"$work/err" || true
    end=$(date +%s%N)
    read -r _ u s kb <"$work/time"
    w=$(awk -v a="$start" -v b="$end" 'BEGIN{printf "%.3f", (b - a) / 1e9}')
    if [ -z "$wall" ] || awk -v a="$w" -v b="$wall" 'BEGIN{exit !(a<b)}'; then
      wall=$w; cpu=$(awk -v u="$u" -v s="$s" 'BEGIN{print u+s}')
      peak_mb=$(awk -v k="$kb" 'BEGIN{printf "%.0f", k/1024}')
    fi
  done
}

row() { # row NAME WALL CPU PEAK_MB
  printf '| %-40s | %8.3f | %8.3f | %9s | %7s | %7.2fx | %7.2fx |\n' "$1" "$2" "$3" \
    "$(awk -v l="$lines" -v w="$2" 'BEGIN{printf "%.0f", (w>0 ? l/w : 0)}')" "$4" \
    "$(awk -v w="$2" -v p="$parse_s" 'BEGIN{print w/p}')" \
    "$(awk -v c="$3" -v p="$parse_cpu" 'BEGIN{print c/p}')"
}

bench_tree() { # bench_tree ROOT LABEL WITH_FLAKE8
  local root=$1 label=$2 with_flake8=$3
  find "$root" -name '*.py' -type f | sort >"$work/files"
  local nfiles bytes
  nfiles=$(wc -l <"$work/files")
  lines=$(tr '\n' '\0' <"$work/files" | xargs -0 cat | wc -l)
  bytes=$(tr '\n' '\0' <"$work/files" | xargs -0 cat | wc -c)
  echo
  echo "### $label: $root ($nfiles files, $lines lines, $((bytes / 1000000)) MB)"
  echo
  # The bare parse: best parse time reported by the baseline itself (reading excluded).
  parse_s=""; parse_cpu=""
  local parse_peak=""
  for _ in $(seq "$runs"); do
    /usr/bin/time -f '%e %M' -o "$work/time" "$baseline" "$work/files" >"$work/out"
    local p
    p=$(sed -E 's/.*parse ([0-9.]+) s.*/\1/' "$work/out")
    if [ -z "$parse_s" ] || awk -v a="$p" -v b="$parse_s" 'BEGIN{exit !(a<b)}'; then
      parse_s=$p; parse_cpu=$(sed -E 's/.*cpu ([0-9.]+) s.*/\1/' "$work/out")
      parse_peak=$(awk '{printf "%.0f", $2/1024}' "$work/time")
    fi
  done
  echo "| what | wall s | cpu s | lines/s | peak MB | x parse (wall) | x parse (cpu) |"
  echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: |"
  row "bare tree-sitter parse, 1 thread" "$parse_s" "$parse_cpu" "$parse_peak"

  local check=("$gradlint" check --exit-zero --output-format concise --select ALL --preview)
  measure "$runs" "${check[@]}" --no-cache -j1 "$root"; local one=$wall one_cpu=$cpu
  row "gradlint check, 1 thread" "$wall" "$cpu" "$peak_mb"
  measure "$runs" "${check[@]}" --no-cache -j"$threads" "$root"; local all=$wall
  row "gradlint check, $threads threads" "$wall" "$cpu" "$peak_mb"
  rm -rf "$work/cache"
  "${check[@]}" --cache-dir "$work/cache" -j"$threads" "$root" >/dev/null 2>&1 # fills the cache
  measure "$runs" "${check[@]}" --cache-dir "$work/cache" -j"$threads" "$root"; local warm=$wall
  row "gradlint check, warm cache" "$wall" "$cpu" "$peak_mb"
  measure "$runs" "${check[@]}" --no-cache -j1 --no-prefilter "$root"; local full=$wall
  row "gradlint check, 1 thread, --no-prefilter" "$wall" "$cpu" "$peak_mb"

  measure 1 node "$here/ruff_wasm.cjs" "$deps" "$work/files"
  local ruff_cold ruff_cold_cpu ruff_warm ruff_warm_cpu
  ruff_cold=$(sed -E 's/.*first ([0-9.]+) cpu.*/\1/' "$work/out")
  ruff_cold_cpu=$(sed -E 's/.*first [0-9.]+ cpu ([0-9.]+) warm.*/\1/' "$work/out")
  ruff_warm=$(sed -E 's/.*warm ([0-9.]+) cpu.*/\1/' "$work/out")
  ruff_warm_cpu=$(sed -E 's/.*warm [0-9.]+ cpu ([0-9.]+)$/\1/' "$work/out")
  row "ruff-wasm (E, F), cold process" "$ruff_cold" "$ruff_cold_cpu" "$peak_mb"
  row "ruff-wasm (E, F), warm, in-process" "$ruff_warm" "$ruff_warm_cpu" "$peak_mb"
  local flake8="" flake8_cpu=""
  if [ "$with_flake8" = 1 ]; then
    measure 1 flake8 -j1 --exit-zero "$root"; flake8=$wall; flake8_cpu=$cpu
    row "flake8 (defaults), 1 process" "$wall" "$cpu" "$peak_mb"
  else
    echo "| flake8: skipped (FLAKE8_LARGE=1 runs it) | | | | | | |"
  fi
  echo
  awk -v one="$one" -v all="$all" -v warm="$warm" -v full="$full" -v rw="$ruff_warm" \
      -v f8="$flake8" -v t="$threads" -v oc="$one_cpu" -v rwc="$ruff_warm_cpu" \
      -v f8c="$flake8_cpu" 'BEGIN{
    printf "- %d threads: %.2fx the 1-thread speed (wall)\n", t, one/all
    printf "- warm cache: %.3fx the cold run on %d threads (wall)\n", warm/all, t
    printf "- prefilter and partial parsing: %.2fx faster than parsing everything (wall)\n", full/one
    printf "- 1 thread vs ruff-wasm warm: gradlint %.2fx its wall time, %.2fx its CPU time\n", one/rw, oc/rwc
    if (f8 != "") printf "- 1 thread vs flake8: %.0fx faster (wall), %.0fx (CPU)\n", f8/one, f8c/oc
  }'
}

echo "gradlint benchmark, $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) cores ($(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //')), gradlint $("$gradlint" --version)"
bench_tree "$corpus" "Corpus" 1
if [ "$scale" -gt 0 ]; then
  large=/tmp/gradlint-bench-x$scale
  if [ ! -f "$large/.complete" ]; then
    rm -rf "$large"
    for i in $(seq "$scale"); do
      mkdir -p "$large/copy$i" && cp -r "$corpus" "$large/copy$i/"
    done
    touch "$large/.complete"
  fi
  runs=${LARGE_RUNS:-1}
  bench_tree "$large" "Synthetic tree, ${scale}x" "${FLAKE8_LARGE:-0}"
fi
