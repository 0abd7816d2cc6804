#!/usr/bin/env bash
# What hand-written kernels reach on gather, spmv and conv1d (attainable.cu),
# as a markdown table on stdout, after the copy ceiling peak.cu measures.
# Needs a GPU and nvcc. Usage: bench/optimize/attainable/run.sh [--reps N]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
nvcc=${NVCC:-nvcc}
arch=${KBCC_BENCH_ARCH:-native}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$nvcc" -arch="$arch" -O3 "$here/../peak/peak.cu" -o "$work/peak"
"$nvcc" -arch="$arch" -O3 -std=c++17 "$here/attainable.cu" -o "$work/attainable"
peak=$("$work/peak")
ceiling=$(sed -n 's/.*copy_gbps=\([0-9.]*\).*/\1/p' <<<"$peak")
[[ -n $ceiling ]] || { echo "attainable: peak.cu printed no copy_gbps: $peak" >&2; exit 1; }
echo "$peak"
echo
args=(--reps 31)
[[ $# -gt 0 ]] && args=("$@")
"$work/attainable" "$ceiling" "${args[@]}"
