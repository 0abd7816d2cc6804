#!/bin/bash
# Builds kbcc's GPU harness here (x86-64, no GPU needed) and gathers what the
# GPU machine lacks into .carry/gpu-harness (ignored by git): kbcc-harness (a
# kbcc with the capture/replay/profile commands and no LLVM/LMDB), kbcc-gpu,
# libkbcc_capture.so, lit, FileCheck and not (with libz3).
# Usage: scripts/gpu/prepare-carry.sh [BUILD_DIR]   (default build-gpu)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$root/build-gpu}
llvm=/usr/lib/llvm-19
[ -f "$build/build.ninja" ] || cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release
cmake --build "$build" --target kbcc-harness
dest=$root/.carry/gpu-harness
rm -rf "$dest"
mkdir -p "$dest/llvm-bin" "$dest/llvm-lib"
cp -r "$build/harness/bin" "$build/harness/lib" "$dest/"
cp -r "$llvm/build/utils/lit" "$dest/lit"
find "$dest/lit" -name __pycache__ -prune -exec rm -rf {} +
# lit passes tests a fixed environment (no LD_LIBRARY_PATH): wrap the LLVM
# tools so that they find the carried libz3.
for tool in FileCheck not; do
  cp "$llvm/bin/$tool" "$dest/llvm-lib/$tool"
  printf '#!/bin/sh\nd=$(dirname "$0")/../llvm-lib\nLD_LIBRARY_PATH="$d${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" exec "$d/%s" "$@"\n' "$tool" >"$dest/llvm-bin/$tool"
  chmod +x "$dest/llvm-bin/$tool"
done
for lib in $(ldd "$llvm/bin/FileCheck" | awk '/libz3/ {print $3}'); do cp -L "$lib" "$dest/llvm-lib/"; done
du -sh "$dest"
