#!/usr/bin/env bash
# Builds kbcc and runs every test: unit tests (ctest) and the lit suites.
# GPU tests run only where a GPU is visible (lit feature cuda-gpu).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${KBCC_BUILD_DIR:-$root/build}
"$root/scripts/build.sh"
cmake --build "$build" --target check
