#!/usr/bin/env python3
"""Build overhead of kbcc against plain nvcc.

Builds bench/build_overhead/project (23 CUDA translation units, some using
CUB, Thrust and cooperative groups) with Ninja, once with nvcc and once with
kbcc in compiler form, and measures the wall time and the CPU time (user +
system of every process the build ran) of each build:

  nvcc        plain nvcc
  kbcc-cold   kbcc with an empty KBCC_DIR (every kernel is extracted)
  kbcc-warm   kbcc with a KBCC_DIR filled by a previous build (extraction cached)

at each -j level, `--reps` times, interleaving the configurations so that load
changes on a shared machine hit all of them alike. Prints a markdown table of
medians, spreads (min-max) and ratios to nvcc, and writes it to --out.

Usage: run.py [--kbcc PATH] [--nvcc PATH] [--reps N] [--jobs 1,2] [--arch sm_90]
              [--out FILE] [--work DIR] [--max-load L] [--max-wait S]
"""
import argparse
import os
import platform
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
PROJECT = os.path.join(HERE, "project")
CONFIGS = ("nvcc", "kbcc-cold", "kbcc-warm")
# Targets from the issue: (wall ratio, CPU ratio) per configuration and -j.
TARGETS = {("kbcc-cold", 1): (1.05, 1.30), ("kbcc-cold", 2): (None, 1.30),
           ("kbcc-warm", 1): (1.02, 1.02), ("kbcc-warm", 2): (1.02, 1.02)}


def parse_args():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    build = os.environ.get("KBCC_BUILD_DIR", os.path.join(ROOT, "build"))
    p.add_argument("--kbcc", default=os.path.join(build, "bin", "kbcc"))
    p.add_argument("--nvcc", default=shutil.which("nvcc") or "/usr/local/cuda/bin/nvcc")
    p.add_argument("--reps", type=int, default=3)
    p.add_argument("--jobs", default="1,2")
    p.add_argument("--arch", default="sm_90")
    p.add_argument("--out", default="")
    p.add_argument("--work", default="")
    p.add_argument("--max-load", type=float, default=1.5,
                   help="before each build wait (at most --max-wait s) until the 1-minute load average is below this")
    p.add_argument("--max-wait", type=float, default=120)
    return p.parse_args()


def write_ninja(build_dir, compiler, arch):
    """Writes build_dir/build.ninja compiling every project TU with `compiler`."""
    os.makedirs(build_dir, exist_ok=True)
    sources = sorted(f for f in os.listdir(PROJECT) if f.endswith(".cu"))
    lines = [
        f"cc = {compiler}",
        f"flags = -arch={arch} -O3 -std=c++17 -I{PROJECT}",
        "rule cu",
        "  command = $cc $flags -c $in -o $out",
        "rule link",
        f"  command = $cc -arch={arch} $in -o $out",
    ]
    objects = []
    for s in sources:
        obj = "obj/" + s[:-3] + ".o"
        objects.append(obj)
        lines.append(f"build {obj}: cu {os.path.join(PROJECT, s)}")
    lines.append("build app: link " + " ".join(objects))
    with open(os.path.join(build_dir, "build.ninja"), "w") as f:
        f.write("\n".join(lines) + "\n")
    return len(sources)


def wait_for_low_load(max_load, max_wait):
    deadline = time.monotonic() + max_wait
    while os.getloadavg()[0] > max_load and time.monotonic() < deadline:
        time.sleep(5)
    return os.getloadavg()[0]


def timed_build(build_dir, jobs, env):
    """Cleans and builds build_dir; returns (wall seconds, CPU seconds)."""
    subprocess.run(["ninja", "-C", build_dir, "-t", "clean"], check=True, capture_output=True)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.monotonic()
    r = subprocess.run(["ninja", "-C", build_dir, f"-j{jobs}"], env=env, capture_output=True, text=True)
    wall = time.monotonic() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if r.returncode != 0:
        sys.exit(f"build failed in {build_dir}:\n{r.stdout[-4000:]}\n{r.stderr[-4000:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def kbcc_env(kbcc_dir, nvcc):
    env = dict(os.environ)
    env["KBCC_DIR"] = kbcc_dir
    env.setdefault("KBCC_NVCC", nvcc)
    return env


def run_all(args, work, on_rep=None):
    jobs = [int(j) for j in args.jobs.split(",")]
    ntu = write_ninja(os.path.join(work, "nvcc"), args.nvcc, args.arch)
    write_ninja(os.path.join(work, "kbcc"), args.kbcc, args.arch)
    plain_env = {k: v for k, v in os.environ.items() if not k.startswith("KBCC_")}
    warm_dir = os.path.join(work, "kbcc-dir-warm")
    cold_dir = os.path.join(work, "kbcc-dir-cold")
    shutil.rmtree(warm_dir, ignore_errors=True)
    print("priming the warm KBCC_DIR ...", file=sys.stderr)
    timed_build(os.path.join(work, "kbcc"), max(jobs), kbcc_env(warm_dir, args.nvcc))
    samples = {(c, j): [] for c in CONFIGS for j in jobs}
    loads = []
    for rep in range(args.reps):
        for j in jobs:
            for config in CONFIGS:
                loads.append(wait_for_low_load(args.max_load, args.max_wait))
                if config == "nvcc":
                    res = timed_build(os.path.join(work, "nvcc"), j, plain_env)
                elif config == "kbcc-cold":
                    shutil.rmtree(cold_dir, ignore_errors=True)
                    res = timed_build(os.path.join(work, "kbcc"), j, kbcc_env(cold_dir, args.nvcc))
                else:
                    res = timed_build(os.path.join(work, "kbcc"), j, kbcc_env(warm_dir, args.nvcc))
                samples[(config, j)].append(res)
                print(f"rep {rep + 1}/{args.reps} -j{j} {config:9s} wall {res[0]:7.2f} s  cpu {res[1]:7.2f} s"
                      f"  (load {loads[-1]:.2f})", file=sys.stderr)
        if on_rep:
            on_rep(ntu, jobs, samples, loads, f"(written after repetition {rep + 1} of {args.reps})")
    stats = subprocess.run([args.kbcc, "stats"], env=kbcc_env(warm_dir, args.nvcc), capture_output=True, text=True)
    return ntu, jobs, samples, loads, stats.stdout.strip() or stats.stderr.strip()


def fmt_spread(values):
    return f"{min(values):.2f}–{max(values):.2f}"


def verdict(ratio, target):
    if target is None:
        return "–"
    return f"≤ {target:.2f}: {'yes' if ratio <= target else 'no'}"


def table(args, ntu, jobs, samples, loads, stats_text):
    nvcc_version = subprocess.run([args.nvcc, "--version"], capture_output=True, text=True).stdout.strip().splitlines()
    commit = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"], capture_output=True,
                            text=True).stdout.strip()
    out = ["# Build overhead: kbcc vs nvcc", "",
           f"- Project: bench/build_overhead/project, {ntu} translation units (CUB, Thrust, cooperative groups "
           f"included), `-arch={args.arch} -O3`, built with Ninja; link step included.",
           f"- Machine: {os.cpu_count()} cores, {platform.platform()}; **shared with other builds while measuring** "
           f"(1-minute load average before each build: median {statistics.median(loads):.2f}, "
           f"max {max(loads):.2f}).",
           f"- nvcc: {next((l for l in nvcc_version if 'release' in l), args.nvcc)}; kbcc at commit {commit or 'unknown'}.",
           f"- {min(len(v) for v in samples.values())} repetitions per cell, configurations interleaved; wall = elapsed time of `ninja`, "
           "CPU = user + system time of every process of the build (getrusage of children).",
           "- cold: empty `KBCC_DIR` before each build; warm: `KBCC_DIR` filled by an earlier build of the same "
           "sources (extraction cached).", "",
           "| config | -j | wall median (s) | wall min–max | wall ratio | CPU median (s) | CPU min–max | "
           "CPU ratio | wall target | CPU target |",
           "|---|---|---|---|---|---|---|---|---|---|"]
    for j in jobs:
        base_wall = statistics.median(s[0] for s in samples[("nvcc", j)])
        base_cpu = statistics.median(s[1] for s in samples[("nvcc", j)])
        for config in CONFIGS:
            walls = [s[0] for s in samples[(config, j)]]
            cpus = [s[1] for s in samples[(config, j)]]
            w, c = statistics.median(walls), statistics.median(cpus)
            wt, ct = TARGETS.get((config, j), (None, None))
            out.append(f"| {config} | {j} | {w:.2f} | {fmt_spread(walls)} | {w / base_wall:.3f} | {c:.2f} | "
                       f"{fmt_spread(cpus)} | {c / base_cpu:.3f} | {verdict(w / base_wall, wt)} | "
                       f"{verdict(c / base_cpu, ct)} |")
    out += ["", "`kbcc stats` of the warm KBCC_DIR after the runs:", "", "```", stats_text, "```", ""]
    return "\n".join(out)


def main():
    args = parse_args()
    args.kbcc, args.nvcc = os.path.abspath(args.kbcc), os.path.abspath(args.nvcc)
    for tool in (args.kbcc, args.nvcc):
        if not os.access(tool, os.X_OK):
            sys.exit(f"run.py: {tool} is not an executable (build kbcc first: scripts/build.sh)")
    if not shutil.which("ninja"):
        sys.exit("run.py: ninja not found")
    work = args.work or tempfile.mkdtemp(prefix="kbcc-build-overhead.")

    def write_partial(*partial):
        # Keeps the repetitions measured so far, should a long run be cut short.
        if args.out:
            with open(args.out, "w") as f:
                f.write(table(args, *partial))

    text = table(args, *run_all(args, work, write_partial))
    print(text)
    if args.out:
        with open(args.out, "w") as f:
            f.write(text)


if __name__ == "__main__":
    main()
