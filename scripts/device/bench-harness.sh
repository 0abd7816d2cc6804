#!/usr/bin/env bash
# GPU harness measurements (capture cost and size, replay, timing noise, ncu,
# sanitizers, PyTorch), called by scripts/device/run-gpu.sh bench-harness with
# KBCC pointing at the bundled kbcc and $OUT set. Writes $OUT/bench.md (copy to
# bench/results/gpu-harness.md), $OUT/bench.log and $OUT/ncu-raw.csv.
set -u
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
  echo "GPU: $gpu. Produced by scripts/device/run-gpu.sh bench-harness on $(date -u +%Y-%m-%d)."
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
