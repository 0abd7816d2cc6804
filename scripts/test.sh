#!/usr/bin/env bash
# Builds kbcc and runs every test: unit tests (ctest) and the lit suites.
# GPU tests run only where a GPU is visible (lit feature cuda-gpu).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
# kbcc finds the real nvcc through KBCC_NVCC, CUDA_HOME or PATH.
export CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
export PATH=$CUDA_HOME/bin:$PATH
build=${KBCC_BUILD_DIR:-$root/build}
"$root/scripts/build.sh"
cmake --build "$build" --target check
