#!/bin/bash
# Runs kbcc's GPU harness tests (lit, REQUIRES: cuda-gpu) and benchmarks on a
# GPU machine, from the repository root, with .carry/gpu-harness made by
# scripts/gpu/prepare-carry.sh. Results go to $OUT (default /tmp/kbcc-gpu-out):
#   env.txt       GPU, driver, tool versions, ldd of the carried binaries
#   lit.log       the lit run
#   bench.md      summary table (copy to bench/results/gpu-harness.md)
#   bench.log     raw output of the benchmark steps
#   ncu-raw.csv   one real `ncu --csv --page raw` output (parser fixture)
set -u
root=$(pwd)
OUT=${OUT:-/tmp/kbcc-gpu-out}
mkdir -p "$OUT"
C=$root/.carry/gpu-harness
export LD_LIBRARY_PATH=$C/llvm-lib:${LD_LIBRARY_PATH:-}
export PATH=$C/bin:/usr/local/cuda/bin:$PATH
export PYTHONUNBUFFERED=1
KBCC=$C/bin/kbcc

{
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv
  nvcc --version | tail -2
  ncu --version | tail -1
  compute-sanitizer --version | tail -1
  python3 -c 'import torch; print("torch", torch.__version__)'
  uname -a
  ldd "$C/bin/kbcc-gpu" "$C/lib/libkbcc_capture.so" "$KBCC" "$C/llvm-bin/FileCheck"
} >"$OUT/env.txt" 2>&1
head -3 "$OUT/env.txt"

# --- lit ------------------------------------------------------------------
obj=/tmp/kbcc-lit
rm -rf "$obj" && mkdir -p "$obj/tests/lit/gpu"
cat >"$obj/tests/lit/lit.site.cfg.py" <<CFG
config.kbcc_src_root = "$root"
config.kbcc_obj_root = "$obj"
config.kbcc_bin_dir = "$C/bin"
config.llvm_tools_dir = "$C/llvm-bin"
config.cuda_root = "/usr/local/cuda"
config.python = "$(command -v python3)"
config.cmake = "$(command -v cmake)"
lit_config.load_config(config, "$root/tests/lit/lit.cfg.py")
# kbcc here is kbcc-harness: no compiler mode, no registry.
config.available_features.add("kbcc-harness")
CFG
t0=$(date +%s)
python3 "$C/lit/lit.py" -sv -j 4 --timeout 300 "$obj/tests/lit/gpu" >"$OUT/lit.log" 2>&1
lit_rc=$?
echo "lit exit $lit_rc in $(($(date +%s) - t0)) s"
tail -12 "$OUT/lit.log"

# --- benchmarks -----------------------------------------------------------
log=$OUT/bench.log
: >"$log"
now() { date +%s.%N; }
secs() { python3 -c "print(f'{$2 - $1:.2f}')"; }
w=/tmp/kbcc-bench && rm -rf $w && mkdir -p $w
nvcc -arch=sm_90 -o $w/kernels tests/gpu_apps/kernels.cu
nvcc -arch=sm_90 -o $w/bigsmem tests/gpu_apps/bigsmem.cu
row() { echo "| $1 | $2 | $3 |" >>"$OUT/bench.md"; }
gpu=$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader)
{
  echo "# GPU harness: measurements"
  echo
  echo "GPU: $gpu. Produced by scripts/gpu/run-harness-tests.sh on $(date -u +%Y-%m-%d)."
  echo
  echo "| what | value | how |"
  echo "| --- | --- | --- |"
} >"$OUT/bench.md"

t=$(now); $w/kernels >>"$log" 2>&1; plain=$(secs $t $(now))
t=$(now); KBCC_DIR=$w/kb $KBCC capture -- $w/kernels >>"$log" 2>&1; cap=$(secs $t $(now))
row "kernels app, plain run" "${plain} s" "wall time, 7 launches, 4 MB buffers each"
row "kernels app under kbcc capture" "${cap} s" "EAGER module loading, all 7 launches captured"
row "capture store size" "$(du -sh $w/kb/captures | cut -f1)" "zstd blobs, deduplicated, changed ranges only for after"
t=$(now); KBCC_DIR=$w/kb $KBCC capture -- $w/kernels >>"$log" 2>&1; cap2=$(secs $t $(now))
row "same app captured again" "${cap2} s, $(du -sh $w/kb/captures | cut -f1)" "identical launches and buffers are stored once"
t=$(now); KBCC_DIR=$w/kb $KBCC replay _Z5saxpyifPKfPf >>"$log" 2>&1; rp=$(secs $t $(now))
row "replay saxpy (calibrated: 3 launches)" "${rp} s" "kbcc replay wall time, runner start included"
KBCC_DIR=$w/kb $KBCC replay _Z5saxpyifPKfPf --time --reps 200 >$w/time.txt 2>&1
cat $w/time.txt >>"$log"
while read -r l; do row "saxpy 1M-1000 floats: $(echo "$l" | awk '{print $1, $2}')" "$(echo "$l" | sed 's/^time [a-z]* *//')" "CUDA events, L2 flushed, 200 reps"; done < <(grep '^time ' $w/time.txt)
row "saxpy original vs original" "$(grep '^speedup' $w/time.txt)" "noise = |A-B| + mean spread"
t=$(now); KBCC_DIR=$w/kb $KBCC profile _Z5saxpyifPKfPf --raw-csv "$OUT/ncu-raw.csv" >$w/prof.txt 2>&1; pf=$(secs $t $(now))
cat $w/prof.txt >>"$log"
row "ncu profile of one launch" "${pf} s" "$(grep -c . $w/prof.txt) lines of metrics; dram_throughput_pct $(awk '/^dram_throughput_pct/ {print $2}' $w/prof.txt)"
t=$(now); KBCC_DIR=$w/kb $KBCC replay _Z5saxpyifPKfPf --memcheck >>"$log" 2>&1; mc=$(secs $t $(now))
row "replay + memcheck (saxpy)" "${mc} s" "compute-sanitizer --tool memcheck on kbcc-gpu launch"
nvcc -cubin -arch=sm_90 -o $w/fast.cubin tests/gpu_apps/variants/saxpy_fast.cu
KBCC_DIR=$w/kb $KBCC replay _Z5saxpyifPKfPf --variant $w/fast.cubin --time --reps 200 >$w/vtime.txt 2>&1
cat $w/vtime.txt >>"$log"
row "saxpy: correct fmaf variant vs original" "$(grep '^speedup' $w/vtime.txt)" "same machine code; must not be called faster"
nvcc -cubin -arch=sm_90 -o $w/racy.cubin tests/gpu_apps/variants/block_sum_racy.cu
t=$(now); KBCC_DIR=$w/kb $KBCC replay _Z9block_sumPKfPfi --variant $w/racy.cubin --no-calibrate --racecheck >$w/race.txt 2>&1; rc=$(secs $t $(now))
cat $w/race.txt >>"$log"
row "racy block_sum variant + racecheck" "${rc} s" "$(grep '^result' $w/race.txt | cut -c1-80)"
t=$(now); KBCC_DIR=$w/kb2 $KBCC capture -- $w/bigsmem >>"$log" 2>&1; bs=$(secs $t $(now))
row "bigsmem app under capture" "${bs} s" "80 KB dynamic shared memory, cudaLaunchKernelEx"
t=$(now); KBCC_DIR=$w/kbt $KBCC capture --max-launches 1 -- python3 tests/gpu_apps/torch_app.py >>"$log" 2>&1; tc=$(secs $t $(now))
t=$(now); python3 tests/gpu_apps/torch_app.py >>"$log" 2>&1; tp=$(secs $t $(now))
row "torch script plain / under capture" "${tp} s / ${tc} s" "$(grep 'launches seen' $log | tail -1 | sed 's/kbcc capture: //')"
t=$(now); KBCC_DIR=$w/kbt $KBCC replay --all >$w/treplay.txt 2>&1; tr=$(secs $t $(now))
cat $w/treplay.txt >>"$log"
row "torch captures replayed" "${tr} s" "$(grep '^summary' $w/treplay.txt)"
echo
cat "$OUT/bench.md"
exit $lit_rc
