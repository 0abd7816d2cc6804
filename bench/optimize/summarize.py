#!/usr/bin/env python3
"""Turns one bench/optimize/run.sh output directory into a markdown table.

Reads OUT/peak.txt (PEAK line of peak/peak.cu) and, for each mode (seed,
empty) and app, OUT/work/<mode>/<app>/{before,after}.txt (RESULT lines of the
app before and after `kbcc optimize`) and report.json (`kbcc report --json`:
trajectories and variants of that KBCC_DIR).

Usage: summarize.py OUT_DIR > table.md
       summarize.py --groups  (the app folders, in table order)
"""
import json
import math
import os
import re
import sys

THRESHOLD = 1.1

# The folders of apps (as run.sh lists them) and the title of each one's table, in order.
GROUPS = [
    ("apps", "The suite"),
    ("extra", "Kernels no transform was written against"),
    ("gridstride", "Grid-stride loops with the launches real programs use"),
    ("atomics", "Sums written as one atomic per element"),
    ("allpairs", "Loops every thread runs over the same elements"),
    ("gathers", "Reads across a 2-D kernel's threads"),
    ("scans", "Running sums each iteration reads"),
    ("unseen", "Kernels written after the transforms"),
    ("helpers", "Loops in __device__ helpers and while loops"),
    ("batched", "Rows or heads in a block index"),
    ("templates", "Instances of kernel templates"),
    ("cstyle", "Kernels written C-style"),
    ("forms", "Sums accumulated in memory or started from it, filters clamped at the borders"),
    ("values", "Divisors and loop bounds passed as arguments"),
    ("splits", "Rows and columns split from a 1-D index"),
    ("volumes", "Kernels indexed in x, y and z"),
    ("staged", "Tiles staged in shared memory and read down their columns"),
    ("lastwarp", "Block reductions that end in an unrolled last warp"),
    ("written", "Block reductions written out a step per statement, or stepped from a constant"),
    ("tiled", "Kernels that stage tiles in shared memory, coarsened across their barriers"),
    ("masked", "Element-wise kernels that store behind data-dependent branches"),
    ("hints", "Loops under `#pragma unroll`"),
    ("private", "Kernels in an anonymous namespace, maxima picked with ?:"),
    ("fresh", "Kernels written after every transform, in ten other domains"),
    ("novel", "Kernels written after every transform: bounds from the row, offsets or a mask, online updates"),
    ("layers", "Kernels written after every transform: layers of neural networks"),
    ("records", "Streams of records: interleaved pairs and pixels"),
    ("nests", "Reductions over nested loops: a batch and the pixels, channels and pixels, pairs of features"),
    ("serial", "Serial kernels: one thread, launched alone, walks the whole input"),
]


def read_result(path):
    """The RESULT line of an app's output as a dict, or None."""
    try:
        with open(path) as f:
            for line in f:
                if line.startswith("RESULT "):
                    return {k: v for k, v in re.findall(r"(\w+)=(\S+)", line)}
    except OSError:
        pass
    return None


def read_peak(out):
    with open(os.path.join(out, "peak.txt")) as f:
        text = f.read()
    m = re.search(r'gpu="([^"]*)" copy_gbps=([\d.]+) fma_gflops=([\d.]+)', text)
    if not m:
        sys.exit(f"summarize.py: no PEAK line in {out}/peak.txt")
    return m.group(1), float(m.group(2)) * 1e9, float(m.group(3)) * 1e9


def roofline_fraction(result, peak_bw, peak_flops):
    """Achieved / attainable performance: max(flop rate / peak, byte rate / peak)."""
    if not result or float(result["ms"]) <= 0:
        return None
    seconds = float(result["ms"]) * 1e-3
    return max(float(result["flops"]) / seconds / peak_flops, float(result["bytes"]) / seconds / peak_bw)


def steps_in_order(report):
    trajectories = sorted(report.get("trajectories", []),
                          key=lambda t: (t.get("started", 0), t.get("index", 0), t.get("id", "")))
    for t in trajectories:
        for s in sorted(t.get("steps", []), key=lambda s: s.get("index", 0)):
            yield s


def attempts_to_threshold(report):
    """1-based index of the first validated step with speedup >= THRESHOLD, or None."""
    if report is None:
        return None
    for n, s in enumerate(steps_in_order(report), 1):
        if s.get("validated") and s.get("speedup", 0) >= THRESHOLD:
            return n
    return None


def gpu_seconds_per_candidate(report):
    """GPU seconds of the evaluated steps over the candidates they evaluated."""
    if report is None:
        return None, 0
    steps = [s for s in steps_in_order(report) if s.get("compiled")]
    candidates = sum(s.get("candidates", 1) for s in steps)
    if not candidates:
        return None, 0
    return sum(s.get("gpu_seconds", 0) for s in steps) / candidates, candidates


def best_variant_speedup(report):
    speedups = [v.get("speedup", 0) for v in (report or {}).get("variants", [])]
    return max(speedups) if speedups else None


def load_report(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def fmt(value, spec, missing="–"):
    return missing if value is None else format(value, spec)


def app_row(work, app, peak_bw, peak_flops):
    """One table row of `app` and its speedup when its results are correct."""
    seed_dir = os.path.join(work, "seed", app)
    empty_dir = os.path.join(work, "empty", app)
    before, after = read_result(os.path.join(seed_dir, "before.txt")), read_result(os.path.join(seed_dir, "after.txt"))
    report = load_report(os.path.join(seed_dir, "report.json"))
    empty_report = load_report(os.path.join(empty_dir, "report.json"))
    correct = bool(before and after and before["ok"] == "1" and after["ok"] == "1")
    speedup = None
    if before and after and float(after["ms"]) > 0:
        speedup = float(before["ms"]) / float(after["ms"])
    per_cand, evaluated = gpu_seconds_per_candidate(report)
    empty_attempts = attempts_to_threshold(empty_report) if os.path.isdir(empty_dir) else None
    row = (f"| {app} | {fmt(before and float(before['ms']), '.4f')} | {fmt(after and float(after['ms']), '.4f')} | "
           f"{fmt(speedup, '.2f')}{'×' if speedup else ''} | {fmt(best_variant_speedup(report), '.2f')} | "
           f"{fmt(roofline_fraction(before, peak_bw, peak_flops), '.1%')} → "
           f"{fmt(roofline_fraction(after, peak_bw, peak_flops), '.1%')} | {evaluated} | {fmt(per_cand, '.2f')} | "
           f"{fmt(attempts_to_threshold(report), 'd', 'not reached')} | "
           f"{fmt(empty_attempts, 'd', 'not reached' if os.path.isdir(empty_dir) else 'not run')} | "
           f"{'yes' if correct else 'NO'} |")
    return row, speedup if correct else None


def print_table(title, rows, speedups):
    print(f"\n## {title}\n")
    print("| kernel | baseline ms | after ms | speedup | variant | roofline before → after | candidates | "
          "GPU s / candidate | attempts ≥1.1× (seed KB) | attempts ≥1.1× (empty KB) | results correct |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    print("\n".join(rows))
    geomean = math.exp(sum(math.log(s) for s in speedups) / len(speedups)) if speedups else None
    print(f"\n**Geomean speedup over {len(speedups)} kernels with correct results: "
          f"{fmt(geomean, '.3f')}{'×' if geomean else ''}**")


def main():
    if sys.argv[1:] == ["--groups"]:  # the folders, for run.sh
        print(" ".join(folder for folder, _ in GROUPS))
        return
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    out = sys.argv[1]
    gpu, peak_bw, peak_flops = read_peak(out)
    work = os.path.join(out, "work")
    here = os.path.dirname(os.path.abspath(__file__))
    apps = sorted(os.listdir(os.path.join(work, "seed"))) if os.path.isdir(os.path.join(work, "seed")) else []
    groups = {folder: ([], []) for folder, _ in GROUPS}
    for app in apps:
        group = next((g for g, _ in GROUPS if os.path.exists(os.path.join(here, g, app + ".cu"))), "apps")
        row, speedup = app_row(work, app, peak_bw, peak_flops)
        groups[group][0].append(row)
        if speedup:
            groups[group][1].append(speedup)
    print(f"# kbcc optimize on naive kernels\n")
    print(f"- GPU: {gpu}; measured ceilings: copy {peak_bw / 1e9:.0f} GB/s, FMA {peak_flops / 1e9:.0f} GFLOP/s "
          "(bench/optimize/peak/peak.cu).")
    print("- speedup: the app's own kernel time (median, L2 flushed) before / after `kbcc optimize` and a rebuild "
          "with kbcc; 'variant' is the stored variant's own timing evidence.")
    print("- roofline: achieved / attainable = max(flop rate / FMA ceiling, necessary DRAM bytes rate / copy "
          "ceiling), from each app's declared flops and bytes.")
    print("- candidates: kernels compiled, validated and timed (a mechanical step evaluates several parameter "
          "settings); GPU s / candidate: the runner's time over them (compiles run on the CPU, in parallel).")
    print(f"- attempts: optimization steps, in trajectory order, up to the first validated one ≥ {THRESHOLD}× "
          "(seed KB: the shipped KB; empty KB: the same techniques with all evidence, insights, priors and "
          "orderings removed).")
    for folder, title in GROUPS:
        if groups[folder][0]:
            print_table(f"{title} (bench/optimize/{folder})", *groups[folder])


if __name__ == "__main__":
    main()
