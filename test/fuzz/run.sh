#!/usr/bin/env bash
# Runs each libFuzzer target for SECONDS (libFuzzer's -max_total_time) and fails on the first
# crash, hang, leak or sanitizer report. The corpus starts from the lit tests' inputs (every
# test/**/*.py and *.toml, every test/**/*.ipynb) plus the seeds in seeds/TARGET (hand-written,
# or made by our own tools: summary files from `gradlint summarize`, file-tree archives from
# make_environment_seeds.py) and the regression inputs in regressions/TARGET (earlier crashes,
# replayed first on every run).
#   test/fuzz/run.sh SECONDS [BUILD_DIR]          (BUILD_DIR: build-fuzz, the `fuzz` preset)
# GRADLINT_FUZZ_WORK=DIR keeps the grown corpus and any crash files there (default: a new
# temporary folder, printed at the end); GRADLINT_FUZZ_ARGS adds libFuzzer flags (-jobs=N ...).
set -euo pipefail
seconds=${1:?usage: test/fuzz/run.sh SECONDS [BUILD_DIR]}
source_root=$(cd "$(dirname "$0")/../.." && pwd)
build=${2:-$source_root/build-fuzz}
work=${GRADLINT_FUZZ_WORK:-$(mktemp -d -t gradlint-fuzz.XXXXXX)}
fuzz_dir=$source_root/test/fuzz

# Seed corpora from the test suite: file names flattened, so equal names do not collide.
seed_corpus() { # TARGET PATTERN...
  local corpus=$work/corpus/$1
  shift
  mkdir -p "$corpus"
  local name
  (cd "$source_root" && find test "$@" -type f -not -path 'test/fuzz/*' -print0) |
    while IFS= read -r -d '' name; do
      cp "$source_root/$name" "$corpus/seed_${name//\//_}"
    done
}
seed_corpus fuzz_python_check \( -name '*.py' -o -name '*.pyi' \)
seed_corpus fuzz_config -name '*.toml'
seed_corpus fuzz_notebook -name '*.ipynb'
# Seeds only in test/fuzz/seeds/TARGET:
mkdir -p "$work/corpus/fuzz_lsp_server" "$work/corpus/fuzz_environment" \
  "$work/corpus/fuzz_summary_file"

# The targets run side by side, as many at once as there are cores (GRADLINT_FUZZ_PARALLEL to
# change): each is one process, so a 2-core CI machine does six minutes of fuzzing in three.
# Each target's libFuzzer log goes to $work/logs/TARGET.log; a failing one is printed.
parallel=${GRADLINT_FUZZ_PARALLEL:-$(nproc)}
mkdir -p "$work/logs"
fuzz_one() { # TARGET
  local target=$1
  mkdir -p "$work/artifacts/$target" "$fuzz_dir/regressions/$target"
  # Hand-written seeds, where a target has them (git keeps no empty folder).
  local seeds=()
  [ -d "$fuzz_dir/seeds/$target" ] && seeds=("$fuzz_dir/seeds/$target")
  # New inputs go to the first folder (the work corpus); the others are read-only.
  # shellcheck disable=SC2086
  "$build/bin/$target" -max_total_time="$seconds" -timeout=25 -rss_limit_mb=4096 \
    -print_final_stats=1 -dict="$fuzz_dir/$target.dict" \
    -artifact_prefix="$work/artifacts/$target/" ${GRADLINT_FUZZ_ARGS:-} \
    "$work/corpus/$target" "${seeds[@]}" "$fuzz_dir/regressions/$target" \
    > "$work/logs/$target.log" 2>&1
}
targets=(fuzz_python_check fuzz_config fuzz_lsp_server fuzz_notebook fuzz_environment
         fuzz_summary_file)
declare -A pids=()
for target in "${targets[@]}"; do
  while [ "$(jobs -rp | wc -l)" -ge "$parallel" ]; do wait -n || true; done
  echo "== $target: ${seconds}s"
  fuzz_one "$target" &
  pids[$target]=$!
done
status=0
for target in "${targets[@]}"; do
  if wait "${pids[$target]}"; then
    echo "== $target: $(grep -E '^stat::number_of_executed_units' "$work/logs/$target.log")"
  else
    tail -n 40 "$work/logs/$target.log" >&2
    echo "run.sh: $target failed; the input that did it is in $work/artifacts/$target/" >&2
    status=1
  fi
done
echo "run.sh: corpus, artifacts and logs in $work"
exit $status
