#!/usr/bin/env bash
# Times register_blocking's rewrite of the suite's matrix product
# (apps/matmul.cu) at every point of the transform's search space, for
# n = 1024 and 2048, against the kernel as written: one row per (shape, map),
# the median of three runs of the app's own timing (20 launches after an L2
# flush each), every output checked by the app against its CPU reference.
#   bench/optimize/blocking_shapes.sh OUT_DIR
# Needs a GPU, nvcc on PATH, and kbcc in $KBCC_BUILD_DIR/bin or on PATH.
# Writes OUT_DIR/blocking-shapes.md and prints it.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${1:?usage: blocking_shapes.sh OUT_DIR}
kbcc=${KBCC_BUILD_DIR:+$KBCC_BUILD_DIR/bin/}kbcc
work=$out/blocking-shapes && rm -rf "$work" && mkdir -p "$work"
launch='dim3 block(16, 16), grid(n / 16, n / 16);'
grep -qF "$launch" "$here/apps/matmul.cu" || { echo "blocking_shapes.sh: apps/matmul.cu no longer launches as '$launch'" >&2; exit 1; }

# The search space, as the transform states it on its default point.
"$kbcc" optimize --transform register_blocking --source "$here/apps/matmul.cu" -I "$here/apps" >"$work/default.cu"
shapes=$(sed -n 's|^// kbcc: parameter shape = [^ ]* of ||p' "$work/default.cu")
maps=$(sed -n 's|^// kbcc: parameter map = [^ ]* of ||p' "$work/default.cu")
[ -n "$shapes" ] && [ -n "$maps" ] || { echo "blocking_shapes.sh: kbcc states no shape or map parameter" >&2; exit 1; }

# Each variant launched as its mapping says: blocks of (TILE/MICRO)^2 threads over n/TILE tiles per side.
for n in 1024 2048; do
  sed "s|const int n = 1024;|const int n = $n;|" "$here/apps/matmul.cu" >"$work/naive-$n.cu"
  for shape in $shapes; do
    tile=${shape%%x*} micro=$(echo "$shape" | cut -dx -f2)
    side=$((tile / micro))
    for map in $maps; do
      "$kbcc" optimize --transform register_blocking --param shape="$shape" --param map="$map" \
        --source "$work/naive-$n.cu" -I "$here/apps" |
        sed "s|$launch|dim3 block($side, $side), grid(n / $tile, n / $tile);|" >"$work/$shape-$map-$n.cu"
    done
  done
done
ls "$work"/*-*.cu | grep -v default | xargs -P "$(nproc)" -I{} sh -c \
  'nvcc -O3 -arch=native -I "$1" -o "${2%.cu}" "$2" || echo "blocking_shapes.sh: $2 does not compile" >&2' _ "$here/apps" {}

# median_ms BINARY: the median of three runs' ms; "failed" when a run fails its check.
median_ms() {
  local runs=() r
  for _ in 1 2 3; do
    r=$("$1" | sed -n 's|^RESULT .* ok=1 ms=\([0-9.]*\) .*|\1|p') || true
    [ -n "$r" ] || { echo failed; return; }
    runs+=("$r")
  done
  printf '%s\n' "${runs[@]}" | sort -g | sed -n 2p
}

{
  echo "| shape (TILE x MICRO x BK), map | n = 1024: µs | speedup | n = 2048: µs | speedup |"
  echo "|---|---|---|---|---|"
  declare -A naive
  for n in 1024 2048; do naive[$n]=$(median_ms "$work/naive-$n"); done
  echo "| as written | $(awk -v m="${naive[1024]}" 'BEGIN{printf "%.1f", m * 1000}') | 1.00× | $(awk -v m="${naive[2048]}" 'BEGIN{printf "%.1f", m * 1000}') | 1.00× |"
  for shape in $shapes; do
    for map in $maps; do
      row="| $shape $map"
      for n in 1024 2048; do
        ms=$(median_ms "$work/$shape-$map-$n")
        if [ "$ms" = failed ]; then row+=" | failed | –"; continue; fi
        row+=$(awk -v m="$ms" -v b="${naive[$n]}" 'BEGIN{printf " | %.1f | %.2f×", m * 1000, b / m}')
      done
      echo "$row |"
    done
  done
} | tee "$out/blocking-shapes.md"
