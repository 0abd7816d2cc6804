#!/usr/bin/env bash
# On the GPU machine, from the repository root, with .carry/kbcc.tar.xz made
# by scripts/device/bundle.sh: unpacks the bundle and runs what is asked.
#   scripts/device/run-gpu.sh lit [lit paths...]     cuda-gpu lit tests (log under $OUT)
#   scripts/device/run-gpu.sh bench-optimize         bench/optimize/run.sh into $OUT/optimize
#   scripts/device/run-gpu.sh bench-attainable       hand-written gather, spmv and conv1d into $OUT/attainable.md
#   scripts/device/run-gpu.sh bench-blocking         register_blocking's shapes on the product into $OUT/blocking-shapes.md
#   scripts/device/run-gpu.sh bench-harness          harness measurements into $OUT/bench.md
#   scripts/device/run-gpu.sh env                    versions and ldd (into $OUT/env.txt)
#   scripts/device/run-gpu.sh bench-launch           launch adapter overhead into $OUT/launch-overhead.md
#   scripts/device/run-gpu.sh pack                   the benchmark's tables and logs into $OUT/optimize.tgz
set -uo pipefail
root=$(pwd)
OUT=${OUT:-/tmp/kbcc-out}
mkdir -p "$OUT"
B=/tmp/kbcc-bundle/kbcc
# A warm machine keeps the bundle an earlier command unpacked: unpack again
# when the carried one differs, so that every command runs the tree it carries.
sum=$(sha256sum "$root/.carry/kbcc.tar.xz" | cut -d' ' -f1)
if [ ! -x "$B/bin/kbcc" ] || [ "$(cat /tmp/kbcc-bundle/.sum 2>/dev/null)" != "$sum" ]; then
  rm -rf /tmp/kbcc-bundle && mkdir -p /tmp/kbcc-bundle && tar xJf "$root/.carry/kbcc.tar.xz" -C /tmp/kbcc-bundle
  echo "$sum" >/tmp/kbcc-bundle/.sum
fi
# Clang's resource headers where kbcc's tooling expects them.
if [ ! -d /usr/lib/llvm-19/lib/clang/19/include ]; then
  mkdir -p /usr/lib/llvm-19/lib/clang/19 && tar xJf "$B/clang-include.tar.xz" -C /usr/lib/llvm-19/lib/clang/19
fi
export PATH=$B/bin:$B/tools:/usr/local/cuda/bin:$PATH
export PYTHONUNBUFFERED=1
# The bench scripts look for $KBCC_BUILD_DIR/bin/kbcc.
export KBCC_BUILD_DIR=$B
what=${1:-lit}
shift || true
case $what in
  env)
    { nvidia-smi --query-gpu=name,driver_version,memory.total,compute_cap --format=csv
      nvcc --version | tail -2; cmake --version | head -1; uname -a
      ldd "$B/bin/kbcc" "$B/bin/kbcc-gpu" "$B/tools/FileCheck"; kbcc --kbcc-version; } >"$OUT/env.txt" 2>&1
    head -3 "$OUT/env.txt" ;;
  lit)
    obj=/tmp/kbcc-lit && rm -rf "$obj" && mkdir -p "$obj/tests/lit"
    cat >"$obj/tests/lit/lit.site.cfg.py" <<CFG
config.kbcc_src_root = "$root"
config.kbcc_obj_root = "$obj"
config.kbcc_bin_dir = "$B/bin"
config.llvm_tools_dir = "$B/tools"
config.cuda_root = "/usr/local/cuda"
config.python = "$(command -v python3)"
config.cmake = "$(command -v cmake)"
lit_config.load_config(config, "$root/tests/lit/lit.cfg.py")
CFG
    paths=()
    for p in "${@:-gpu}"; do paths+=("$obj/tests/lit/$p"); done
    python3 "$B/tools/lit/lit.py" -sv -j "${LIT_JOBS:-1}" --timeout 500 "${paths[@]}" 2>&1 | tee "$OUT/lit.log"
    exit "${PIPESTATUS[0]}" ;;
  bench-optimize)
    bash bench/optimize/run.sh "$OUT/optimize" "$@" ;;
  bench-attainable)
    bash bench/optimize/attainable/run.sh "$@" | tee "$OUT/attainable.md" ;;
  bench-blocking)
    bash bench/optimize/blocking_shapes.sh "$OUT" ;;
  bench-harness)
    KBCC=$B/bin/kbcc OUT=$OUT bash scripts/device/bench-harness.sh ;;
  bench-launch)
    bash bench/launch_overhead/run.sh "$OUT" ;;
  pack)
    # $OUT keeps only two folder levels: the optimize run's files go in one archive.
    (cd "$OUT/optimize" && python3 "$root/bench/optimize/summarize.py" . >optimize.md 2>>run.log;
     tar czf "$OUT/optimize.tgz" optimize.md run.log peak.txt $(ls work/*/*/{before,after,capture,optimize,stats}.* work/*/*/report.json 2>/dev/null)) ;;
  *) echo "run-gpu.sh: unknown step '$what'" >&2; exit 2 ;;
esac
