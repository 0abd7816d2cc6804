#!/usr/bin/env bash
# Packs a self-contained kbcc for a GPU machine that has CUDA 13 but neither
# LLVM 19 nor kbcc's Debian libraries, as .carry/kbcc.tar.xz (ignored by git;
# run-gpu.sh unpacks it to /tmp/kbcc-bundle):
#   bin/kbcc, bin/kbcc-full,
#   bin/kbcc-gpu                  built with KBCC_STATIC_LLVM=ON, RPATH $ORIGIN/../lib
#   lib/                          libkbcc_capture.so and every non-glibc shared library they need
#   clang-include.tar.xz          Clang 19's resource headers (CUDA wrappers), unpacked there by run-gpu.sh
#   tools/                        lit, FileCheck, not, count (RPATH'd to lib/)
# Usage: scripts/device/bundle.sh [BUILD_DIR]   (default build-static)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$root/build-static}
llvm=/usr/lib/llvm-19
command -v patchelf >/dev/null || apt-get install -y -qq patchelf >/dev/null
[ -f "$build/build.ninja" ] || cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DKBCC_STATIC_LLVM=ON -DKBCC_BUILD_TESTS=OFF >/dev/null
cmake --build "$build" --target kbcc kbcc-full kbcc-gpu kbcc_capture
dest=$root/.carry/kbcc
mkdir -p "$root/.carry"
rm -rf "$dest" && mkdir -p "$dest/bin" "$dest/lib" "$dest/tools"
strip -o "$dest/bin/kbcc" "$build/bin/kbcc"
strip -o "$dest/bin/kbcc-full" "$build/bin/kbcc-full"
cp "$build/bin/kbcc-gpu" "$dest/bin/"
cp "$build/lib/libkbcc_capture.so" "$dest/lib/"
for t in FileCheck not count; do cp "$llvm/bin/$t" "$dest/tools/"; done
cp -r "$llvm/build/utils/lit" "$dest/tools/lit"
find "$dest/tools/lit" -name __pycache__ -prune -exec rm -rf {} +
# Shared libraries other than glibc's, libstdc++ and the CUDA driver/CUPTI.
skip='libresolv|libutil|linux-vdso|ld-linux|/libc\.so|/libm\.so|/libdl\.so|/librt\.so|/libpthread\.so|libstdc\+\+|libgcc_s|libcuda\.so|libcupti'
for f in "$dest/bin/kbcc" "$dest/bin/kbcc-full" "$dest/bin/kbcc-gpu" "$dest/lib/libkbcc_capture.so" "$dest/tools/FileCheck"; do
  ldd "$f" | awk '/=> \// {print $3}' | grep -Ev "$skip" | while read -r lib; do cp -nL "$lib" "$dest/lib/"; done
done
for f in "$dest/bin/kbcc" "$dest/bin/kbcc-full" "$dest/bin/kbcc-gpu" "$dest/tools/FileCheck" "$dest/tools/not" "$dest/tools/count"; do
  patchelf --force-rpath --set-rpath "\$ORIGIN/../lib" "$f"  # DT_RPATH: also for transitive deps
done
tar cJf "$dest/clang-include.tar.xz" -C "$llvm/lib/clang/19" include
XZ_OPT=-T2 tar cJf "$root/.carry/kbcc.tar.xz" -C "$root/.carry" kbcc
rm -rf "$dest"
ls -la "$root/.carry/kbcc.tar.xz"
