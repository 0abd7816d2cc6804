#!/usr/bin/env bash
# kbcc end to end on the bundled example (examples/):
#   1. builds kbcc (scripts/build.sh),
#   2. builds the example with kbcc as the CUDA compiler and shows the kernels
#      kbcc found and recorded,
#   3. on a machine with a GPU: runs the app, captures its launches
#      (kbcc capture), optimizes them (kbcc optimize), rebuilds, runs the app
#      again and prints the speedup of its kernel time.
# Usage: scripts/demo.sh [work-dir]   (default: a fresh /tmp/kbcc-demo.XXXXXX)
# KBCC_DIR defaults to <work-dir>/kbcc-dir so the demo never touches ~/.cache.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
# kbcc finds the real nvcc through KBCC_NVCC, CUDA_HOME or PATH.
export CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
export PATH=$CUDA_HOME/bin:$PATH
build=${KBCC_BUILD_DIR:-$root/build}
work=${1:-$(mktemp -d /tmp/kbcc-demo.XXXXXX)}
mkdir -p "$work"
work=$(cd "$work" && pwd)
export KBCC_DIR=${KBCC_DIR:-$work/kbcc-dir}
kbcc=$build/bin/kbcc

step() { printf '\n== %s\n' "$*"; }

step "building kbcc into $build"
KBCC_BUILD_DIR=$build "$root/scripts/build.sh"

gpu=""
if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L 2>/dev/null | grep -q '^GPU'; then
  gpu=$(nvidia-smi -L | head -1)
  cap=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -1 | tr -d ' .')
else
  cap=90
fi
arch=sm_$cap

step "building examples/ with kbcc as CMAKE_CUDA_COMPILER (arch $arch, KBCC_DIR=$KBCC_DIR)"
cmake -S "$root/examples" -B "$work/example" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_CUDA_COMPILER="$kbcc" -DCMAKE_CUDA_ARCHITECTURES="$cap" >/dev/null
cmake --build "$work/example"

step "kernels kbcc found in the example's sources (kbcc explain, with the build's flags)"
# The flags CMake passes in a Release build, so the hashes equal the registry's below.
for src in "$root"/examples/src/*.cu; do
  "$kbcc" explain -O3 -DNDEBUG "--generate-code=arch=compute_${cap},code=[compute_${cap},sm_${cap}]" -O3 "$src"
done

step "kernels the build recorded in the registry (kbcc cache list --registry)"
"$kbcc" cache list --registry

step "build statistics (kbcc stats)"
"$kbcc" stats

if [[ -z $gpu ]]; then
  step "no GPU visible (nvidia-smi -L lists none): capture, optimize and the timed rerun are skipped"
  echo "Run this script on a machine with an NVIDIA GPU to see the optimization loop end to end."
  exit 0
fi

step "running the app on $gpu"
app=$work/example/app
"$app" | tee "$work/before.txt"

step "capturing its kernel launches (kbcc capture -- app)"
"$kbcc" capture -- "$app" --reps 1

step "optimizing the captured kernels for $arch (kbcc optimize)"
"$kbcc" optimize

step "rebuilding the example (variants are substituted now)"
cmake --build "$work/example" --clean-first
"$kbcc" stats
"$kbcc" cache list

step "running the rebuilt app"
"$app" | tee "$work/after.txt"

before=$(awk '/^total kernel time/ {print $4}' "$work/before.txt")
after=$(awk '/^total kernel time/ {print $4}' "$work/after.txt")
step "speedup"
awk -v b="$before" -v a="$after" 'BEGIN { printf "total kernel time %.4f ms -> %.4f ms: %.2fx\n", b, a, b / a }'
"$kbcc" report -o "$work/report.html"
echo "report: $work/report.html"
