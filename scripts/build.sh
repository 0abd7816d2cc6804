#!/usr/bin/env bash
# Configures and builds kbcc into ${KBCC_BUILD_DIR:-build} (Ninja, Release).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${KBCC_BUILD_DIR:-$root/build}
"$root/scripts/install-deps.sh"
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX="$build/install" >/dev/null
cmake --build "$build" -j "$(nproc)"
