#!/usr/bin/env bash
# Installs what bench/run.sh compares gradlint with, when missing: Debian's flake8, GNU time
# (peak memory) and python3-torch (the corpus), and ruff's WebAssembly build from npm into
# bench/.deps (ignored by git). Needs root or sudo for apt-get. Safe to re-run.
set -euo pipefail
cd "$(dirname "$0")"
source ../tool/apt_packages.sh

packages=(flake8 time python3-torch nodejs)
command -v npm >/dev/null 2>&1 || packages+=(npm)
install_missing_packages bench/setup "${packages[@]}"

# Ruff's WebAssembly build (no native ruff is packaged for Debian 12).
if [ ! -f .deps/node_modules/@astral-sh/ruff-wasm-nodejs/package.json ]; then
  mkdir -p .deps
  npm install --prefix .deps --no-audit --no-fund --silent @astral-sh/ruff-wasm-nodejs
fi
