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

status=0
for target in fuzz_python_check fuzz_config fuzz_lsp_server fuzz_notebook fuzz_environment \
  fuzz_summary_file; do
  mkdir -p "$work/artifacts/$target" "$fuzz_dir/regressions/$target"
  # Hand-written seeds, where a target has them (git keeps no empty folder).
  seeds=()
  [ -d "$fuzz_dir/seeds/$target" ] && seeds=("$fuzz_dir/seeds/$target")
  echo "== $target: ${seconds}s"
  # New inputs go to the first folder (the work corpus); the others are read-only.
  # shellcheck disable=SC2086
  if ! "$build/bin/$target" -max_total_time="$seconds" -timeout=25 -rss_limit_mb=4096 \
      -print_final_stats=1 -dict="$fuzz_dir/$target.dict" \
      -artifact_prefix="$work/artifacts/$target/" ${GRADLINT_FUZZ_ARGS:-} \
      "$work/corpus/$target" "${seeds[@]}" "$fuzz_dir/regressions/$target"; then
    echo "run.sh: $target failed; the input that did it is in $work/artifacts/$target/" >&2
    status=1
  fi
done
echo "run.sh: corpus and artifacts in $work"
exit $status
