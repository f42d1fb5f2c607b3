#!/usr/bin/env bash
# Installs what bench/run.sh compares gradlint with, when missing: Debian's flake8, GNU time
# (peak memory) and python3-torch (the corpus), and ruff's WebAssembly build from npm into
# bench/.deps (ignored by git). Needs root or sudo for apt-get. Safe to re-run.
set -euo pipefail
cd "$(dirname "$0")"

packages=(flake8 time python3-torch nodejs)
command -v npm >/dev/null 2>&1 || packages+=(npm)
missing=()
for package in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "ok installed" || missing+=("$package")
done
if [ ${#missing[@]} -gt 0 ]; then
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo=sudo
  echo "bench/setup: installing ${missing[*]}"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends \
    "${missing[@]}" >/dev/null
fi

# Ruff's WebAssembly build (no native ruff is packaged for Debian 12).
if [ ! -f .deps/node_modules/@astral-sh/ruff-wasm-nodejs/package.json ]; then
  mkdir -p .deps
  npm install --prefix .deps --no-audit --no-fund --silent @astral-sh/ruff-wasm-nodejs
fi
