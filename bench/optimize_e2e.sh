#!/usr/bin/env bash
# End-to-end optimization benchmark on the local GPU, mechanical transforms
# only (no LLM): builds examples/ with kbcc, captures, runs `kbcc optimize`,
# rebuilds and compares the app's kernel times (medians of --reps runs).
# Writes bench/results/optimize-e2e-<gpu>.md.
#   usage: bench/optimize_e2e.sh [path/to/kbcc] [reps]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
kbcc=${1:-$root/build/bin/kbcc}
reps=${2:-50}
work=$(mktemp -d /tmp/kbcc-bench-e2e.XXXXXX)
trap 'rm -rf "$work"' EXIT
export KBCC_DIR=$work/kb
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
slug=$(echo "$gpu" | tr 'A-Z ' 'a-z-' | tr -cd 'a-z0-9-')
out=$root/bench/results/optimize-e2e-$slug.md

cmake -S "$root/examples" -B "$work/build" -DCMAKE_CUDA_COMPILER="$kbcc" -DCMAKE_CUDA_ARCHITECTURES="$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -1 | tr -d " .")" >/dev/null
cmake --build "$work/build" >/dev/null
"$work/build/app" --reps "$reps" >"$work/before.txt"
"$kbcc" capture -- "$work/build/app" --reps 3 >/dev/null
start=$(date +%s)
"$kbcc" optimize --no-llm --trajectories 8 --depth 4 --seed 1 | tee "$work/optimize.txt"
took=$(( $(date +%s) - start ))
"$kbcc" stats --zero
cmake --build "$work/build" --clean-first >/dev/null
hits=$("$kbcc" stats | awk '/^variant hits/ {print $3}')
"$work/build/app" --reps "$reps" >"$work/after.txt"

mkdir -p "$root/bench/results"
{
  echo "# kbcc optimize end to end: examples/ on $gpu"
  echo
  echo "$(date -u +%Y-%m-%dT%H:%MZ), kbcc $("$kbcc" --version | head -1), mechanical transforms only,"
  echo "8 trajectories x 4 steps, seed 1; optimize took ${took}s; variant hits in the rebuild: $hits."
  echo "App kernel times are medians of $reps runs (CUDA events), before and after the rebuild."
  echo
  python3 "$root/tests/lit/agent/Inputs/compare_app.py" "$work/before.txt" "$work/after.txt"
  echo
  echo '`kbcc optimize` (its own replay timings: sum over captures of the median of 50 launches, L2 flushed):'
  echo
  echo '```'
  cat "$work/optimize.txt"
  echo '```'
} >"$out"
echo "wrote $out"
