#!/usr/bin/env bash
# The host cost of kbcc's launch adapter (docs/kernels.md), on a GPU machine:
# launch.cu built with nvcc (plain <<<>>>), and with kbcc with a
# launch-changing variant whose preconditions hold (the adapter launches the
# variant) or fail (the adapter falls back to the original), each timed as the
# host time per launch of a 20000-launch loop (median of 7 runs).
# Usage: bench/launch_overhead/run.sh OUT_DIR   (writes OUT_DIR/launch-overhead.md)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
out=${1:?usage: run.sh OUT_DIR}
mkdir -p "$out"
kbcc=${KBCC_BUILD_DIR:-$root/build}/bin/kbcc
nvcc=${KBCC_NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
cap=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -1 | tr -d ' .')
arch=sm_$cap
work=$(mktemp -d)
export KBCC_DIR=$work/kd
"$nvcc" -arch="$arch" -O3 -o "$work/plain" "$here/launch.cu"
"$kbcc" -arch="$arch" -O3 -o "$work/first" "$here/launch.cu"
hash=$("$kbcc" cache list --registry | awk -v a="$arch" 'index("," $3 ",", "," a ",") { print $1; exit }')
measure() { for i in 1 2 3; do "$1" | sed -n 's/.*ns_per_launch=\([0-9.]*\).*/\1/p'; done | sort -n | sed -n 2p; }
row() { printf '| %s | %s |\n' "$1" "$2"; }
{
  echo "# Launch adapter overhead"
  echo
  echo "- GPU: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -1); $(date -u +%F)"
  echo "- host time per launch of an empty-bodied kernel (<<<1, 256>>>), 20000-launch loop, median of 7 runs, median of 3 processes"
  echo
  echo "| build | ns per launch |"
  echo "|---|---|"
  plain=$(measure "$work/plain")
  row "nvcc, plain <<<>>>" "$plain"
  python3 "$here/variant.py" "$hash" "$arch" "n > 0" >"$work/v.json"
  "$kbcc" cache import-variant "$work/v.json" >/dev/null
  "$kbcc" -arch="$arch" -O3 -o "$work/variant" "$here/launch.cu"
  variant=$(measure "$work/variant")
  row "kbcc, adapter launches the variant (4 preconditions hold)" "$variant"
  "$kbcc" cache clear >/dev/null
  python3 "$here/variant.py" "$hash" "$arch" "n > 1000000" >"$work/f.json"
  "$kbcc" cache import-variant "$work/f.json" >/dev/null
  "$kbcc" -arch="$arch" -O3 -o "$work/fallback" "$here/launch.cu"
  fallback=$(measure "$work/fallback")
  row "kbcc, adapter falls back (a precondition fails)" "$fallback"
  echo
  python3 -c "print(f'Adapter cost: {$variant - $plain:+.1f} ns per launch (variant), {$fallback - $plain:+.1f} ns (fallback); the target is at most 500 ns.')"
} | tee "$out/launch-overhead.md"
rm -rf "$work"
