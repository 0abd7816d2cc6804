#!/usr/bin/env bash
# The optimization benchmark, for a machine with an NVIDIA GPU.
#
# For every app in bench/optimize/{apps,extra,gridstride,atomics,allpairs,gathers,scans,unseen,helpers,batched,templates,cstyle,forms,values,splits,volumes,staged,lastwarp,written,tiled,masked,private,fresh,novel,layers,records,nests,serial} (one naive kernel each) and for two
# knowledge bases (the shipped seed KB, and an "empty" KB made by
# make_empty_kb.py), in a fresh KBCC_DIR each:
#   build the app with kbcc -> run it (baseline) -> kbcc capture -- app
#   -> kbcc optimize -> rebuild with kbcc -> run it again -> kbcc report --json
# then measures the GPU's copy bandwidth and FMA rate (peak/peak.cu; once per
# OUT_DIR, kept in OUT_DIR/peak.txt) and writes the table (summarize.py) to
# OUT_DIR/optimize.md.
#
# Usage: bench/optimize/run.sh OUT_DIR [app ...]
# Environment: KBCC_BUILD_DIR (default build/), BENCH_MODES ("seed empty"),
#   BENCH_TRAJECTORIES (4), BENCH_DEPTH (3), BENCH_SEED (1),
#   BENCH_BUDGET_GPU_SECONDS (per kernel; empty = kbcc's default),
#   BENCH_OPTIMIZE_ARGS (more kbcc optimize arguments, e.g. --no-llm).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
out=${1:?usage: bench/optimize/run.sh OUT_DIR [app ...]}
shift
mkdir -p "$out"
out=$(cd "$out" && pwd)
build=${KBCC_BUILD_DIR:-$root/build}
kbcc=$build/bin/kbcc
nvcc=${KBCC_NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
modes=${BENCH_MODES:-seed empty}
# The app folders, as summarize.py's GROUPS lists them with each one's table.
read -r -a groups <<<"$(python3 "$here/summarize.py" --groups)"
if [[ $# -gt 0 ]]; then apps=("$@"); else
  apps=()
  for d in "${groups[@]}"; do
    for f in "$here/$d"/*.cu; do apps+=("$(basename "$f" .cu)"); done
  done
fi

if ! command -v nvidia-smi >/dev/null 2>&1 || ! nvidia-smi -L 2>/dev/null | grep -q '^GPU'; then
  echo "run.sh: no GPU visible (nvidia-smi -L); this benchmark needs one" >&2
  exit 1
fi
[[ -x $kbcc ]] || KBCC_BUILD_DIR=$build "$root/scripts/build.sh"
cap=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -1 | tr -d ' .')
arch=sm_$cap
work=$out/work
mkdir -p "$work"
log() { printf '[%s] %s\n' "$(date -u +%H:%M:%S)" "$*" | tee -a "$out/run.log" >&2; }

log "GPU: $(nvidia-smi -L | head -1); arch $arch; kbcc $("$kbcc" --kbcc-version)"
if [[ -s $out/peak.txt ]]; then
  log "reusing the ceilings measured earlier: $(cat "$out/peak.txt")"
else
  "$nvcc" -arch="$arch" -O3 "$here/peak/peak.cu" -o "$work/peak"
  "$work/peak" | tee "$out/peak.txt"
fi

opt_args=(--seed "${BENCH_SEED:-1}" --trajectories "${BENCH_TRAJECTORIES:-4}" --depth "${BENCH_DEPTH:-3}")
[[ -n ${BENCH_BUDGET_GPU_SECONDS:-} ]] && opt_args+=(--budget-gpu-seconds "$BENCH_BUDGET_GPU_SECONDS")
[[ -n ${BENCH_BUDGET_SECONDS:-} ]] && opt_args+=(--budget-seconds "$BENCH_BUDGET_SECONDS")
read -r -a extra_args <<<"${BENCH_OPTIMIZE_ARGS:-}"
opt_args+=("${extra_args[@]}")

# apps/ holds the suite, extra/ kernels no transform was written against,
# gridstride/ grid-stride loops launched as real programs launch them,
# atomics/ sums written as one atomic per element, allpairs/ loops every
# thread runs over the same elements, gathers/ 2-D kernels whose stored
# value reads across the threads of a warp, scans/ running sums each
# iteration reads, unseen/ kernels written after the
# transforms and measured before any change made for them, helpers/ kernels
# whose loops sit in __device__ helpers or while loops, batched/ kernels
# whose row or head is a block index, templates/ instances of kernel
# templates, cstyle/ kernels written C-style (sizes in macros, locals
# declared first), forms/ sums accumulated in memory or started from it and filters clamped at
# the borders, values/ kernels whose divisors and loop bounds are arguments,
# splits/ 2-D kernels written over a 1-D index split into a row and a column,
# volumes/ kernels indexed in x, y and z, staged/ tiles staged in shared
# memory and read down their columns, lastwarp/ block reductions that end in
# an unrolled last warp, written/ block reductions written out a step per
# statement or stepped from a constant, tiled/ kernels that stage tiles in
# shared memory around barriers (a tiled product, a transpose, stencils),
# masked/ element-wise kernels that store behind data-dependent branches,
# private/ kernels in an anonymous namespace or with a maximum picked by ?:,
# fresh/ kernels written after every transform, in ten other domains, novel/
# eight more: loop bounds from the row, offsets or a mask, online updates,
# layers/ six more, layers of neural networks, records/ streams read or
# written as records of a few elements (pairs, pixels), nests/ one thread
# per item reducing over nested loops (a batch and the pixels, pairs),
# serial/ kernels that one thread, launched alone, runs over a whole input.
source_of() {
  local d
  for d in "${groups[@]}"; do
    [[ -f $here/$d/$1.cu ]] && echo "$here/$d/$1.cu" && return
  done
  echo "$here/apps/$1.cu"
}
compile() { "$kbcc" -arch="$arch" -O3 -std=c++17 -I"$here/apps" "$(source_of "$1")" -o "$2"; }

run_one() { # mode app
  local mode=$1 app=$2 dir=$work/$1/$2
  rm -rf "$dir" && mkdir -p "$dir"
  export KBCC_DIR=$dir/kbcc-dir
  if [[ $mode == empty ]]; then
    "$kbcc" kb export -o "$dir/seed-kb.json"
    python3 "$here/make_empty_kb.py" "$dir/seed-kb.json" "$dir/empty-kb.json"
    "$kbcc" kb import "$dir/empty-kb.json"
  fi
  compile "$app" "$dir/app-before"
  "$dir/app-before" >"$dir/before.txt" || log "$mode/$app: baseline run failed (see $dir/before.txt)"
  "$kbcc" capture -- "$dir/app-before" --reps 1 >"$dir/capture.log" 2>&1 || log "$mode/$app: capture failed"
  local t0=$SECONDS
  "$kbcc" optimize "${opt_args[@]}" >"$dir/optimize.log" 2>&1 || log "$mode/$app: optimize failed"
  log "$mode/$app: optimize took $((SECONDS - t0)) s"
  compile "$app" "$dir/app-after"
  "$dir/app-after" >"$dir/after.txt" || log "$mode/$app: optimized run failed (see $dir/after.txt)"
  "$kbcc" report --json -o "$dir/report.json" || log "$mode/$app: report failed"
  "$kbcc" stats >"$dir/stats.txt" 2>&1 || true
  log "$mode/$app: $(grep -h RESULT "$dir/before.txt" || echo no result) -> $(grep -h RESULT "$dir/after.txt" || echo no result)"
}

for mode in $modes; do
  for app in "${apps[@]}"; do run_one "$mode" "$app"; done
done
python3 "$here/summarize.py" "$out" | tee "$out/optimize.md"
