#!/usr/bin/env bash
# Benchmark: gradlint against the bare tree-sitter-python parse and against its peers (flake8,
# ruff's WebAssembly build) on the same files, in one run, then on a synthetic tree SCALE times
# larger (copies of the corpus under /tmp) to show how the cost grows. Not a test: numbers vary
# by machine.
#   bench/setup.sh                       # once: flake8, GNU time, python3-torch, ruff-wasm
#   bench/run.sh [BUILD_DIR] [CORPUS]    # default: build, Debian's python3-torch sources
# CORPUS may be any tree of Python files, such as a checkout of a real repository: the setup
# downloads nothing, so get it yourself, for example
#   git clone --depth 1 https://github.com/huggingface/diffusers /tmp/diffusers
#   bench/run.sh build /tmp/diffusers/src
# Environment: RUNS (best of, default 3; LARGE_RUNS on the synthetic tree, default 1), SCALE
# (default 10; 0: no synthetic tree),
# FLAKE8_LARGE=1 (also run flake8 on the synthetic tree: minutes), THREADS (default: nproc),
# CONTEXT=0 (skip the rows of the whole-program view: context and its caches),
# LSP_FILE=PATH (a file of the corpus's repository for the language-server row; default: the
# corpus's nn/modules/module.py or diffusers' pipeline_stable_diffusion.py when there; none: no
# row), LSP_EDITS (default 30), CPP_UNITS (C++ units for the many-units row, default 8; 0: no
# C++ rows; needs Debian's libtorch-dev).
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

# time_once CMD...: one run; sets w (wall, to the millisecond: GNU time's %e has 10 ms steps,
# too coarse for a warm run of ~40 ms), c (user + system CPU) and mb (peak memory).
time_once() {
  local start end u s kb
  start=$(date +%s%N)
  /usr/bin/time -f '%e %U %S %M' -o "$work/time" "$@" >"$work/out" 2>"$work/err" || true
  end=$(date +%s%N)
  read -r _ u s kb <"$work/time"
  w=$(awk -v a="$start" -v b="$end" 'BEGIN{printf "%.3f", (b - a) / 1e9}')
  c=$(awk -v u="$u" -v s="$s" 'BEGIN{print u+s}')
  mb=$(awk -v k="$kb" 'BEGIN{printf "%.0f", k/1024}')
}

# keep NAME: records the last time_once as NAME's if its wall time is the best so far.
declare -A best_wall best_cpu best_mb one_peak_mb
keep() {
  if [ -z "${best_wall[$1]:-}" ] || awk -v a="$w" -v b="${best_wall[$1]}" 'BEGIN{exit !(a<b)}'
  then
    best_wall[$1]=$w; best_cpu[$1]=$c; best_mb[$1]=$mb
  fi
}

# measure N CMD...: the run with the best wall time of N; sets wall, cpu and peak_mb.
measure() {
  local n=$1; shift
  best_wall[measure]=""
  for _ in $(seq "$n"); do time_once "$@"; keep measure; done
  wall=${best_wall[measure]}; cpu=${best_cpu[measure]}; peak_mb=${best_mb[measure]}
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
  # The bare parse and gradlint's 1-thread, all-thread and warm runs take turns, best of $runs
  # each: a shared VM's speed drifts over minutes (steal time), and the ratios between these
  # rows should compare runs made under the same conditions.
  local check=("$gradlint" check --exit-zero --output-format concise --select ALL --preview)
  rm -rf "$work/cache"
  "${check[@]}" --cache-dir "$work/cache" -j"$threads" "$root" >/dev/null 2>&1 # fills the cache
  best_wall=(); best_cpu=(); best_mb=()
  : >"$work/pair_ratios" # the 1-thread run over the all-thread run just after it, each turn
  parse_s=""; parse_cpu=""
  local parse_peak=""
  for _ in $(seq "$runs"); do
    # The bare parse: the parse time the baseline reports itself (reading excluded).
    /usr/bin/time -f '%e %M' -o "$work/time" "$baseline" "$work/files" >"$work/out"
    local p
    p=$(sed -E 's/.*parse ([0-9.]+) s.*/\1/' "$work/out")
    if [ -z "$parse_s" ] || awk -v a="$p" -v b="$parse_s" 'BEGIN{exit !(a<b)}'; then
      parse_s=$p; parse_cpu=$(sed -E 's/.*cpu ([0-9.]+) s.*/\1/' "$work/out")
      parse_peak=$(awk '{printf "%.0f", $2/1024}' "$work/time")
    fi
    time_once "${check[@]}" --no-cache -j1 "$root"; keep one
    local one_now=$w
    time_once "${check[@]}" --no-cache -j"$threads" "$root"; keep all
    awk -v a="$one_now" -v b="$w" 'BEGIN{print a/b}' >>"$work/pair_ratios"
    time_once "${check[@]}" --cache-dir "$work/cache" -j"$threads" "$root"; keep warm
  done
  echo "| what | wall s | cpu s | lines/s | peak MB | x parse (wall) | x parse (cpu) |"
  echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: |"
  row "bare tree-sitter parse, 1 thread" "$parse_s" "$parse_cpu" "$parse_peak"
  local one=${best_wall[one]} one_cpu=${best_cpu[one]} all=${best_wall[all]}
  local warm=${best_wall[warm]}
  row "gradlint check, 1 thread" "$one" "$one_cpu" "${best_mb[one]}"
  row "gradlint check, $threads threads" "$all" "${best_cpu[all]}" "${best_mb[all]}"
  row "gradlint check, warm cache" "$warm" "${best_cpu[warm]}" "${best_mb[warm]}"
  measure "$runs" "${check[@]}" --no-cache -j1 --no-prefilter "$root"; local full=$wall
  row "gradlint check, 1 thread, --no-prefilter" "$wall" "$cpu" "$peak_mb"
  one_peak_mb[$label]=${best_mb[one]}
  # What a CI job that restores the cache of one earlier run sees: the first run of an empty
  # cache folder, then the second (context on, as by default), best of $runs pairs.
  best_wall=(); best_cpu=(); best_mb=()
  : >"$work/second_ratios"
  for _ in $(seq "$runs"); do
    rm -rf "$work/cold-cache"
    time_once "${check[@]}" --cache-dir "$work/cold-cache" -j"$threads" "$root"; keep first
    local first_now=$w
    time_once "${check[@]}" --cache-dir "$work/cold-cache" -j"$threads" "$root"; keep second
    awk -v a="$w" -v b="$first_now" 'BEGIN{print a/b}' >>"$work/second_ratios"
  done
  row "first run of an empty cache, $threads threads" "${best_wall[first]}" \
    "${best_cpu[first]}" "${best_mb[first]}"
  row "second run of that cache" "${best_wall[second]}" "${best_cpu[second]}" \
    "${best_mb[second]}"
  second_ratio=$(sort -g "$work/second_ratios" | awk '{r[NR]=$1} END{print r[int((NR+1)/2)]}')
  cache_kb=$(du -sk "$work/cold-cache" | cut -f1)

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
  local pair_median
  pair_median=$(sort -g "$work/pair_ratios" |
    awk '{r[NR]=$1} END{print (NR%2 ? r[(NR+1)/2] : (r[NR/2]+r[NR/2+1])/2)}')
  awk -v one="$one" -v all="$all" -v warm="$warm" -v full="$full" -v rw="$ruff_warm" \
      -v f8="$flake8" -v t="$threads" -v oc="$one_cpu" -v rwc="$ruff_warm_cpu" \
      -v f8c="$flake8_cpu" -v pm="$pair_median" -v n="$runs" -v sr="$second_ratio" \
      -v ck="$cache_kb" 'BEGIN{
    printf "- %d threads: %.2fx the 1-thread speed (wall, best of %d each); median of the %d\n", t, one/all, n, n
    printf "  back-to-back pairs: %.2fx\n", pm
    printf "- warm cache: %.3fx the cold run on %d threads (wall)\n", warm/all, t
    printf "- prefilter and partial parsing: %.2fx faster than parsing everything (wall)\n", full/one
    printf "- second run of a cold cache: %.2fx the first (median of the %d pairs, wall); cache folder %.1f MB\n", sr, n, ck/1024
    printf "- 1 thread vs ruff-wasm warm: gradlint %.2fx its wall time, %.2fx its CPU time\n", one/rw, oc/rwc
    if (f8 != "") printf "- 1 thread vs flake8: %.0fx faster (wall), %.0fx (CPU)\n", f8/one, f8c/oc
  }'
}

# The whole-program view (docs/context.md): a few named files of the corpus against the whole
# corpus, cold and after a full run filled the cache; and examples/ with Debian's system
# interpreter as the environment against the same check without context, cold and warm; and a
# 50-file project of corpus modules, warm, with that environment and without context.
bench_context() {
  local check=("$gradlint" check --exit-zero --output-format concise --select ALL --preview
               -j"$threads")
  local five=()
  for f in nn/modules/module.py autograd/grad_mode.py optim/optimizer.py utils/checkpoint.py \
           nn/parallel/distributed.py; do
    [ -f "$corpus/$f" ] && five+=("$corpus/$f")
  done
  # Another corpus: its five largest Python files.
  [ ${#five[@]} -gt 0 ] ||
    mapfile -t five < <(find "$corpus" -name '*.py' -printf '%s %p\n' | sort -k1,1nr -k2 |
                        awk 'NR <= 5' | cut -d' ' -f2-)
  local examples="$here/../examples"
  echo
  echo "### Context and caches ($threads threads; ${#five[@]} named files of the corpus; $examples)"
  echo
  echo "| what | wall s | cpu s | peak MB | ratio (wall) | ratio (cpu) |"
  echo "| --- | ---: | ---: | ---: | ---: | ---: |"
  ctx_row() { # NAME WALL CPU MB BASE_WALL BASE_CPU
    printf '| %-52s | %8.3f | %8.3f | %7s | %7.3fx | %7.3fx |\n' "$1" "$2" "$3" "$4" \
      "$(awk -v a="$2" -v b="$5" 'BEGIN{print (b > 0 ? a/b : 0)}')" \
      "$(awk -v a="$3" -v b="$6" 'BEGIN{print (b > 0 ? a/b : 0)}')"
  }
  rm -rf "$work/full-cache"
  "${check[@]}" --cache-dir "$work/full-cache" "$corpus" >/dev/null 2>&1
  best_wall=(); best_cpu=(); best_mb=()
  # Without named files (a corpus that is not torch's) these rows would check the working
  # folder: they are left out.
  [ ${#five[@]} -gt 0 ] && for _ in $(seq "$runs"); do
    time_once "${check[@]}" --no-cache "$corpus"; keep full
    time_once "${check[@]}" --no-cache "${five[@]}"; keep five_cold
    rm -rf "$work/cache5" && cp -r "$work/full-cache" "$work/cache5"
    time_once "${check[@]}" --cache-dir "$work/cache5" "${five[@]}"; keep five_after_full
    time_once "${check[@]}" --cache-dir "$work/cache5" "${five[@]}"; keep five_warm
  done
  local fw=${best_wall[full]:-0} fc=${best_cpu[full]:-0}
  [ ${#five[@]} -gt 0 ] && {
  ctx_row "corpus, all files, cold (the base of the next 3)" "$fw" "$fc" "${best_mb[full]}" "$fw" "$fc"
  ctx_row "${#five[@]} files, cold" "${best_wall[five_cold]}" "${best_cpu[five_cold]}" \
    "${best_mb[five_cold]}" "$fw" "$fc"
  ctx_row "${#five[@]} files, after a full run filled the cache" "${best_wall[five_after_full]}" \
    "${best_cpu[five_after_full]}" "${best_mb[five_after_full]}" "$fw" "$fc"
  ctx_row "${#five[@]} files, warm (their own entry)" "${best_wall[five_warm]}" \
    "${best_cpu[five_warm]}" "${best_mb[five_warm]}" "$fw" "$fc"
  }
  if [ -x /usr/bin/python3 ] && [ -d "$examples" ]; then
    rm -rf "$work/ex-env" "$work/ex-bare"
    best_wall=(); best_cpu=(); best_mb=()
    # Runs of tens of milliseconds: more turns (GNU time's CPU figures have 10 ms steps; the wall
    # ratio is the one to read, a 0 CPU ratio means under 10 ms).
    for _ in $(seq $((runs * 3))); do
      time_once "${check[@]}" --no-cache --no-context "$examples"; keep bare_cold
      time_once "${check[@]}" --no-cache --python /usr/bin/python3 "$examples"; keep env_cold
      time_once "${check[@]}" --cache-dir "$work/ex-bare" --no-context "$examples"; keep bare_warm
      time_once "${check[@]}" --cache-dir "$work/ex-env" --python /usr/bin/python3 "$examples"
      keep env_warm
    done
    local bw=${best_wall[bare_cold]} bc=${best_cpu[bare_cold]}
    ctx_row "examples/, --no-context, cold (base of the next)" "$bw" "$bc" "${best_mb[bare_cold]}" "$bw" "$bc"
    ctx_row "examples/, --python /usr/bin/python3, cold" "${best_wall[env_cold]}" \
      "${best_cpu[env_cold]}" "${best_mb[env_cold]}" "$bw" "$bc"
    local ww=${best_wall[bare_warm]} wc=${best_cpu[bare_warm]}
    ctx_row "examples/, --no-context, warm (base of the next)" "$ww" "$wc" "${best_mb[bare_warm]}" "$ww" "$wc"
    ctx_row "examples/, --python /usr/bin/python3, warm" "${best_wall[env_warm]}" \
      "${best_cpu[env_warm]}" "${best_mb[env_warm]}" "$ww" "$wc"
    # A 50-file project: 50 modules of the corpus's nn/ (or of the corpus) in one folder under a
    # pyproject.toml, checked from inside it (the paths below are absolute). The context
    # snapshot trusts only paths older than 3 s: the copy ages before the runs.
    local project="$work/project50" here_dir=$PWD
    local in_project=("$(cd "$(dirname "$gradlint")" && pwd)/gradlint" "${check[@]:1}")
    rm -rf "$project" "$work/p50-env" "$work/p50-bare"
    mkdir -p "$project/layers" && : >"$project/pyproject.toml"
    local layers="$corpus/nn"
    [ -d "$layers" ] || layers=$corpus # another corpus: any 50 of its modules
    # (awk, not head: head would stop reading and fail the pipeline with SIGPIPE)
    find "$layers" -name '*.py' ! -name '__init__.py' | sort | awk 'NR <= 50' |
      while read -r f; do cp "$f" "$project/layers/$(echo "${f#"$corpus"/}" | tr / _)"; done
    sleep 3.2
    cd "$project"
    "${in_project[@]}" --cache-dir "$work/p50-bare" --no-context . >/dev/null 2>&1 || true
    "${in_project[@]}" --cache-dir "$work/p50-env" --python /usr/bin/python3 . >/dev/null 2>&1 || true
    best_wall=(); best_cpu=(); best_mb=()
    for _ in $(seq $((runs * 3))); do
      time_once "${in_project[@]}" --cache-dir "$work/p50-bare" --no-context .; keep p50_bare
      time_once "${in_project[@]}" --cache-dir "$work/p50-env" --python /usr/bin/python3 .
      keep p50_env
    done
    cd "$here_dir"
    local pw=${best_wall[p50_bare]} pc=${best_cpu[p50_bare]}
    ctx_row "50-file project, --no-context, warm (base of the next)" "$pw" "$pc" \
      "${best_mb[p50_bare]}" "$pw" "$pc"
    ctx_row "50-file project, --python /usr/bin/python3, warm" "${best_wall[p50_env]}" \
      "${best_cpu[p50_env]}" "${best_mb[p50_env]}" "$pw" "$pc"
  fi
}

# The language server in the corpus's repository: opening one of its files, then edits that
# keep its imports (bench/lsp_latency.py --file), so the server works with the file's context.
bench_lsp() {
  local file=${LSP_FILE:-}
  if [ -z "$file" ]; then
    for candidate in "$corpus/nn/modules/module.py" \
        "$corpus/diffusers/pipelines/stable_diffusion/pipeline_stable_diffusion.py"; do
      [ -f "$candidate" ] && { file=$candidate; break; }
    done
  fi
  [ -n "$file" ] && [ "$file" != none ] && [ -f "$file" ] || return 0
  echo
  echo "### Language server: $file"
  echo
  python3 "$here/lsp_latency.py" "$gradlint" --file "$file" --edits "${LSP_EDITS:-30}" |
    sed 's/^/- /'
}

# C++: CPP_UNITS small units that each include <torch/torch.h> (Debian's LibTorch), checked
# together, against one of them alone; both with a compile database, 1 thread, no cache.
bench_cpp() {
  local units=${CPP_UNITS:-8}
  local api=/usr/include/torch/csrc/api/include
  [ "$units" -gt 0 ] && [ -f "$api/torch/torch.h" ] || return 0
  local dir="$work/cpp"
  mkdir -p "$dir"
  local entries=()
  for i in $(seq "$units"); do
    cat >"$dir/unit$i.cpp" <<CPP
#include <torch/torch.h>

double evaluate$i(torch::nn::Linear& model, const torch::Tensor& batch) {
  torch::NoGradGuard no_grad;
  return model->forward(batch).sum().item<double>();
}
CPP
    entries+=("{\"directory\": \"$dir\", \"file\": \"unit$i.cpp\", \"arguments\": [\"clang++\", \"-std=c++17\", \"-I$api\", \"-c\", \"unit$i.cpp\"]}")
  done
  (IFS=,; echo "[${entries[*]}]") >"$dir/compile_commands.json"
  echo
  echo "### C++: $units units including <torch/torch.h>, 1 thread"
  echo
  local cpp=("$gradlint" check --exit-zero --no-cache -j1 -p "$dir")
  measure "$runs" "${cpp[@]}" "$dir/unit1.cpp"
  local one_w=$wall one_c=$cpu one_mb=$peak_mb
  measure 1 "${cpp[@]}" "$dir"
  printf -- '- 1 unit: %.1f s wall, %.1f s CPU, %s MB; %d units: %.1f s wall, %.1f s CPU, %s MB: %.2fx one unit (wall), %.2fx (CPU)\n' \
    "$one_w" "$one_c" "$one_mb" "$units" "$wall" "$cpu" "$peak_mb" \
    "$(awk -v a="$wall" -v b="$one_w" 'BEGIN{print a/b}')" \
    "$(awk -v a="$cpu" -v b="$one_c" 'BEGIN{print a/b}')"
}

echo "gradlint benchmark, $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) cores ($(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //')), gradlint $("$gradlint" --version)"
bench_tree "$corpus" "Corpus" 1
[ "${CONTEXT:-1}" = 0 ] || bench_context
if [ "$scale" -gt 0 ]; then
  # One tree per corpus: a tree made from another corpus is not this one's copies.
  large=/tmp/gradlint-bench-x$scale-$(realpath "$corpus" | md5sum | cut -c1-8)
  if [ ! -f "$large/.complete" ]; then
    rm -rf "$large"
    for i in $(seq "$scale"); do
      mkdir -p "$large/copy$i" && cp -r "$corpus" "$large/copy$i/"
    done
    touch "$large/.complete"
    # The cache trusts a file's stored hash only when its stat is 3 s older than the run that
    # stored it (program/file_stat.h, "racy git"): filled at once, the warm row would hash the
    # whole fresh tree again.
    sleep 4
  fi
  runs=${LARGE_RUNS:-1}
  bench_tree "$large" "Synthetic tree, ${scale}x" "${FLAKE8_LARGE:-0}"
  echo
  awk -v big="${one_peak_mb[Synthetic tree, ${scale}x]}" -v small="${one_peak_mb[Corpus]}" \
      -v s="$scale" 'BEGIN{printf "- peak memory, 1 thread: %d MB on the %dx tree, %d MB on the corpus: %.2fx\n", big, s, small, big/small}'
fi
runs=${RUNS:-3}
bench_lsp
bench_cpp
