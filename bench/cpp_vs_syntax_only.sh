#!/usr/bin/env bash
# The C++ checker against the compiler's own front end: `gradlint check` and
# `clang++-19 -fsyntax-only` with the same flags on the same files, taking turns (so both see the
# same machine load), each file on its own. Not a test: numbers vary by machine.
#   bench/cpp_vs_syntax_only.sh [BUILD_DIR] FILE... -- FLAGS...
# Environment: RUNS (best of, default 3). Each row: wall and CPU seconds and peak RSS (GNU time)
# of both, and gradlint's ratio to clang++-19 -fsyntax-only. With HEADER_FILTER_OFF=1 a third
# column runs gradlint with `--header-filter '^$'` (no project header's bodies lowered): what
# lowering the project's headers costs.
set -euo pipefail
build=build
if [ $# -gt 0 ] && [ -d "$1" ] && [ -x "$1/bin/gradlint" ]; then build=$1; shift; fi
files=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do files+=("$1"); shift; done
[ $# -gt 0 ] && shift
flags=("$@")
runs=${RUNS:-3}
gradlint="$build/bin/gradlint"
[ -x "$gradlint" ] && [ -x /usr/bin/time ] && command -v clang++-19 >/dev/null ||
  { echo "needs $gradlint, GNU time and clang++-19" >&2; exit 2; }
[ ${#files[@]} -gt 0 ] || { echo "usage: $0 [BUILD_DIR] FILE... -- FLAGS..." >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# measure NAME CMD...: one run; keeps the best wall time of the runs so far in NAME_w, with its
# CPU time (NAME_c) and peak RSS (NAME_mb).
measure() {
  local name=$1; shift
  /usr/bin/time -f '%e %U %S %M' -o "$work/time" "$@" >/dev/null 2>&1 || true
  read -r w u s kb < <(tail -n 1 "$work/time") # after "Command exited with ..."
  local c mb
  c=$(echo "$u + $s" | bc)
  mb=$((kb / 1024))
  local bw="${name}_w"
  if [ -z "${!bw:-}" ] || [ "$(echo "$w < ${!bw}" | bc)" = 1 ]; then
    printf -v "${name}_w" '%s' "$w"; printf -v "${name}_c" '%s' "$c"
    printf -v "${name}_mb" '%s' "$mb"
  fi
}

printf '%-40s %8s %8s %6s | %8s %8s %6s | %7s %7s %6s' file clang_w clang_c MB gl_w gl_c MB \
  'x wall' 'x cpu' 'x mem'
[ -n "${HEADER_FILTER_OFF:-}" ] && printf ' | %8s %6s %9s' nohdr_c MB 'hdr cost'
echo
for file in "${files[@]}"; do
  unset clang_w gl_w nohdr_w
  for ((i = 0; i < runs; i++)); do
    measure clang clang++-19 -fsyntax-only -w "${flags[@]}" "$file"
    measure gl env GRADLINT_NO_CACHE=1 "$gradlint" check --no-respect-gitignore --exit-zero \
      --no-prefilter "$file" -- "${flags[@]}"
    if [ -n "${HEADER_FILTER_OFF:-}" ]; then
      measure nohdr env GRADLINT_NO_CACHE=1 "$gradlint" check --no-respect-gitignore \
        --exit-zero --no-prefilter --header-filter '^$' "$file" -- "${flags[@]}"
    fi
  done
  printf '%-40s %8s %8s %6s | %8s %8s %6s | %6.2fx %6.2fx %5.2fx' "$(basename "$file")" \
    "$clang_w" "$clang_c" "$clang_mb" "$gl_w" "$gl_c" "$gl_mb" \
    "$(echo "$gl_w / $clang_w" | bc -l)" "$(echo "$gl_c / $clang_c" | bc -l)" \
    "$(echo "$gl_mb / $clang_mb" | bc -l)"
  if [ -n "${HEADER_FILTER_OFF:-}" ]; then
    printf ' | %8s %6s %8.2fx' "$nohdr_c" "$nohdr_mb" "$(echo "$gl_c / $nohdr_c" | bc -l)"
  fi
  echo
done
