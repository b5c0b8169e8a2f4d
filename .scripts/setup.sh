#!/usr/bin/env bash
# Installs what lookback needs on a fresh Debian 12 machine (root, Debian archive + npm registry only):
# the C++/WebAssembly toolchain, chromium and python3-numpy (the tests run the chapter's listings) from apt,
# the npm devDependencies with `npm ci`.
# Skips everything already present, so `npm start` and `npm test` can run it every time. Builds nothing.
set -euo pipefail
cd "$(dirname "$0")/.."

major=$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0)
if [ "$major" -lt 20 ]; then
  echo "lookback needs Node.js 20 or newer (found $(node --version 2>/dev/null || echo none))" >&2
  exit 1
fi

packages=(g++ cmake make emscripten libxsimd-dev doctest-dev nlohmann-json3-dev chromium python3-numpy)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing Debian packages: ${missing[*]}"
  sudo=""
  [ "$(id -u)" = 0 ] || sudo=sudo
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  echo "setup: npm ci"
  npm ci --no-audit --no-fund --loglevel=error
fi
