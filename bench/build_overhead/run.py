#!/usr/bin/env python3
"""Build overhead of kbcc against plain nvcc.

Builds a CUDA project (default bench/build_overhead/project: 23 translation
units, some using CUB, Thrust and cooperative groups; --project for another,
e.g. one written by gen_large.py) with Ninja, once with nvcc and once with
kbcc in compiler form, and measures the wall time and the CPU time (user +
system of every process the build ran) of each build:

  nvcc        plain nvcc
  kbcc-cold   kbcc with an empty KBCC_DIR
  kbcc-warm   kbcc with a KBCC_DIR filled by a previous build of the same sources
  kbcc-subst  kbcc with a KBCC_DIR whose variant cache holds a variant for
              every third kernel (its own text, imported as a variant): those
              units are parsed (cold) and compiled rewritten

at each -j level, `--reps` times, interleaving the configurations so that load
changes on a shared machine hit all of them alike. Prints a markdown table of
medians, spreads (min-max) and ratios to nvcc, and writes it to --out.

Usage: run.py [--kbcc PATH] [--nvcc PATH] [--reps N] [--jobs 1,2] [--arch sm_90]
              [--project DIR] [--out FILE] [--work DIR] [--max-load L] [--max-wait S]
"""
import argparse
import json
import os
import re
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
CONFIGS = ("nvcc", "kbcc-cold", "kbcc-warm", "kbcc-subst")
# Targets: (wall ratio, CPU ratio) per configuration, at every -j.
TARGETS = {"kbcc-cold": (1.05, 1.10), "kbcc-warm": (1.02, 1.02), "kbcc-subst": (1.10, None)}


def parse_args():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    build = os.environ.get("KBCC_BUILD_DIR", os.path.join(ROOT, "build"))
    p.add_argument("--kbcc", default=os.path.join(build, "bin", "kbcc"))
    p.add_argument("--nvcc", default=shutil.which("nvcc") or "/usr/local/cuda/bin/nvcc")
    p.add_argument("--reps", type=int, default=3)
    p.add_argument("--jobs", default="1,2")
    p.add_argument("--configs", default=",".join(CONFIGS), help="which configurations to build (nvcc always)")
    p.add_argument("--arch", default="sm_90")
    p.add_argument("--project", default=PROJECT, help="directory of .cu files (and headers) to build")
    p.add_argument("--out", default="")
    p.add_argument("--work", default="")
    p.add_argument("--max-load", type=float, default=1.5,
                   help="before each build wait (at most --max-wait s) until the 1-minute load average is below this")
    p.add_argument("--max-wait", type=float, default=120)
    return p.parse_args()


def write_ninja(build_dir, compiler, arch, project):
    """Writes build_dir/build.ninja compiling every TU of `project` with `compiler`."""
    os.makedirs(build_dir, exist_ok=True)
    sources = sorted(f for f in os.listdir(project) if f.endswith(".cu"))
    lines = [
        f"cc = {compiler}",
        f"flags = -arch={arch} -O3 -std=c++17 -I{project}",
        "rule cu",
        "  command = $cc $flags -c $in -o $out",
        "rule link",
        f"  command = $cc -arch={arch} $in -o $out",
    ]
    objects = []
    for s in sources:
        obj = "obj/" + s[:-3] + ".o"
        objects.append(obj)
        lines.append(f"build {obj}: cu {os.path.join(project, s)}")
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


def import_variant(kbcc, env, entry, arch):
    """Imports `entry`'s own definition as a variant for `arch` (placeholder evidence)."""
    record = {"format": "kbcc-variant", "version": 1, "id": "", "kernel_hash": entry["hash"], "arch": arch,
              "qualified_name": entry["qualified_name"], "source": entry["source"], "toolchain": "bench",
              "provenance": {"optimizations": [], "contributor": "bench"},
              "validation": {"captures_checked": 1, "max_error": 0, "tolerance": 1e-6, "sanitizer": "clean"},
              "timing": {"baseline_median_us": 10, "baseline_spread_us": 0.1, "variant_median_us": 5,
                         "variant_spread_us": 0.1, "runs": 10, "speedup": 2.0, "gpu_name": "bench", "driver": "0"}}
    path = os.path.join(env["KBCC_DIR"], "variant.json")
    for _ in range(2):  # the first answer names the record's id
        with open(path, "w") as f:
            json.dump(record, f)
        r = subprocess.run([kbcc, "cache", "import-variant", path], env=env, capture_output=True, text=True)
        m = re.search(r"expected ([0-9a-f]{32})", r.stdout + r.stderr)
        if not m:
            return r.returncode == 0
        record["id"] = m.group(1)
    return False


def prepare_subst_dir(args, warm_dir, template_dir):
    """A copy of the warm KBCC_DIR with a variant for every third non-template
    kernel, and no extraction cache (the substituting build parses cold)."""
    shutil.rmtree(template_dir, ignore_errors=True)
    shutil.copytree(warm_dir, template_dir)
    env = kbcc_env(template_dir, args.nvcc)
    listing = subprocess.run([args.kbcc, "cache", "list", "--registry", "--json"], env=env, capture_output=True,
                             text=True, check=True).stdout
    entries = sorted((e for e in json.loads(listing) if "<" not in e["qualified_name"]), key=lambda e: e["hash"])
    chosen = [e for i, e in enumerate(entries) if i % 3 == 0]
    imported = sum(import_variant(args.kbcc, env, e, args.arch) for e in chosen)
    shutil.rmtree(os.path.join(template_dir, "extract"), ignore_errors=True)
    print(f"kbcc-subst: {imported} variants for {len(entries)} registry kernels", file=sys.stderr)
    return imported


def run_all(args, work, on_rep=None):
    jobs = [int(j) for j in args.jobs.split(",")]
    ntu = write_ninja(os.path.join(work, "nvcc"), args.nvcc, args.arch, args.project)
    write_ninja(os.path.join(work, "kbcc"), args.kbcc, args.arch, args.project)
    plain_env = {k: v for k, v in os.environ.items() if not k.startswith("KBCC_")}
    warm_dir = os.path.join(work, "kbcc-dir-warm")
    cold_dir = os.path.join(work, "kbcc-dir-cold")
    subst_dir, subst_template = os.path.join(work, "kbcc-dir-subst"), os.path.join(work, "kbcc-dir-subst-template")
    shutil.rmtree(warm_dir, ignore_errors=True)
    print("priming the warm KBCC_DIR ...", file=sys.stderr)
    timed_build(os.path.join(work, "kbcc"), max(jobs), kbcc_env(warm_dir, args.nvcc))
    args.variants = prepare_subst_dir(args, warm_dir, subst_template)
    configs = ["nvcc"] + [c for c in args.configs.split(",") if c in CONFIGS and c != "nvcc"]
    samples = {(c, j): [] for c in CONFIGS for j in jobs}
    loads = []
    for rep in range(args.reps):
        for j in jobs:
            for config in configs:
                loads.append(wait_for_low_load(args.max_load, args.max_wait))
                if config == "nvcc":
                    res = timed_build(os.path.join(work, "nvcc"), j, plain_env)
                elif config == "kbcc-cold":
                    shutil.rmtree(cold_dir, ignore_errors=True)
                    res = timed_build(os.path.join(work, "kbcc"), j, kbcc_env(cold_dir, args.nvcc))
                elif config == "kbcc-subst":
                    shutil.rmtree(subst_dir, ignore_errors=True)
                    shutil.copytree(subst_template, subst_dir)
                    res = timed_build(os.path.join(work, "kbcc"), j, kbcc_env(subst_dir, args.nvcc))
                else:
                    res = timed_build(os.path.join(work, "kbcc"), j, kbcc_env(warm_dir, args.nvcc))
                samples[(config, j)].append(res)
                print(f"rep {rep + 1}/{args.reps} -j{j} {config:9s} wall {res[0]:7.2f} s  cpu {res[1]:7.2f} s"
                      f"  (load {loads[-1]:.2f})", file=sys.stderr)
            if on_rep:
                on_rep(ntu, jobs, samples, loads, f"(written during repetition {rep + 1} of {args.reps})", {})
    stats = subprocess.run([args.kbcc, "stats"], env=kbcc_env(subst_dir, args.nvcc), capture_output=True, text=True)
    own = own_costs(args, work, {"kbcc-cold": None, "kbcc-warm": warm_dir, "kbcc-subst": subst_template})
    return ntu, jobs, samples, loads, stats.stdout.strip() or stats.stderr.strip(), own


# nvcc stand-in for measuring kbcc's own cost: answers --version as nvcc
# does (kbcc identifies the toolchain by it) and does nothing else.
STUB = """#!/bin/sh
case " $* " in *" --version "*) exec "{nvcc}" --version ;; esac
exit 0
"""


def own_costs(args, work, dirs, reps=5):
    """kbcc's own CPU seconds per configuration: every compile command of the
    project run through kbcc with nvcc replaced by a stub, minus the stub run
    alone; the median of `reps` passes (each on a fresh copy of the
    configuration's KBCC_DIR). kbcc hands the compile to nvcc unchanged (or
    rewritten, for a substituted unit), so a build costs nvcc's time plus this."""
    stub = os.path.join(work, "nvcc-stub")
    with open(stub, "w") as f:
        f.write(STUB.format(nvcc=args.nvcc))
    os.chmod(stub, 0o755)
    sources = sorted(f for f in os.listdir(args.project) if f.endswith(".cu"))
    flags = [f"-arch={args.arch}", "-O3", "-std=c++17", f"-I{args.project}"]
    scratch = os.path.join(work, "own-cost")

    def pass_cpu(compiler, env):
        os.makedirs(scratch, exist_ok=True)
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        for s in sources:
            subprocess.run([compiler, *flags, "-c", os.path.join(args.project, s), "-o", os.path.join(scratch, "x.o")],
                           env=env, cwd=scratch, capture_output=True, check=True)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)

    plain = statistics.median(pass_cpu(stub, os.environ) for _ in range(reps))
    out = {}
    for config, template in dirs.items():
        cpus = []
        for _ in range(reps):
            kd = os.path.join(work, "own-cost-dir")
            shutil.rmtree(kd, ignore_errors=True)
            if template:
                shutil.copytree(template, kd)
            env = kbcc_env(kd, stub)
            env["KBCC_NVCC"] = stub
            cpus.append(pass_cpu(args.kbcc, env) - plain)
        out[config] = (statistics.median(cpus), len(sources))
    return out


def fmt_spread(values):
    return f"{min(values):.2f}–{max(values):.2f}"


def verdict(ratio, target):
    if target is None:
        return "–"
    return f"≤ {target:.2f}: {'yes' if ratio <= target else 'no'}"


def table(args, ntu, jobs, samples, loads, stats_text, own):
    nvcc_version = subprocess.run([args.nvcc, "--version"], capture_output=True, text=True).stdout.strip().splitlines()
    commit = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"], capture_output=True,
                            text=True).stdout.strip()
    project = os.path.relpath(args.project, ROOT) if args.project.startswith(ROOT) else os.path.basename(args.project)
    out = ["# Build overhead: kbcc vs nvcc", "",
           f"- Project: {project}, {ntu} translation units, `-arch={args.arch} -O3`, built with Ninja; link step "
           "included.",
           f"- Machine: {os.cpu_count()} cores, {platform.platform()} (1-minute load average before each build: "
           f"median {statistics.median(loads):.2f}, max {max(loads):.2f}).",
           f"- nvcc: {next((l for l in nvcc_version if 'release' in l), args.nvcc)}; kbcc at commit {commit or 'unknown'}.",
           f"- {max(len(v) for v in samples.values())} repetitions per cell, configurations interleaved; wall = elapsed time of `ninja`, "
           "CPU = user + system time of every process of the build (getrusage of children).",
           "- cold: empty `KBCC_DIR` before each build; warm: `KBCC_DIR` filled by an earlier build of the same "
           f"sources; subst: the warm `KBCC_DIR` with {getattr(args, 'variants', 0)} variants imported (every third "
           "non-template kernel, its own text as the variant) and no extraction cache, copied afresh before each "
           "build.", "",
           "| config | -j | wall median (s) | wall min–max | wall ratio | CPU median (s) | CPU min–max | "
           "CPU ratio | wall target | CPU target |",
           "|---|---|---|---|---|---|---|---|---|---|"]
    for j in jobs:
        if not samples[("nvcc", j)]:
            continue
        base_wall = statistics.median(s[0] for s in samples[("nvcc", j)])
        base_cpu = statistics.median(s[1] for s in samples[("nvcc", j)])
        for config in CONFIGS:
            walls = [s[0] for s in samples[(config, j)]]
            cpus = [s[1] for s in samples[(config, j)]]
            if not walls:
                continue
            w, c = statistics.median(walls), statistics.median(cpus)
            wt, ct = TARGETS.get(config, (None, None))
            out.append(f"| {config} | {j} | {w:.2f} | {fmt_spread(walls)} | {w / base_wall:.3f} | {c:.2f} | "
                       f"{fmt_spread(cpus)} | {c / base_cpu:.3f} | {verdict(w / base_wall, wt)} | "
                       f"{verdict(c / base_cpu, ct)} |")
    if own:
        nvcc_cpu = statistics.median(s[1] for s in samples[("nvcc", jobs[0])])
        out += ["", "kbcc's own CPU time, without nvcc's: each compile command of the project run through kbcc with "
                "nvcc replaced by a stub that does nothing, minus the stub alone (median of 5 passes, each on a fresh "
                "copy of the configuration's KBCC_DIR); a build through kbcc costs nvcc's build plus this.", "",
                "| config | kbcc CPU (s) | per compile (ms) | share of nvcc's build CPU |", "|---|---|---|---|"]
        for config, (cpu, n) in own.items():
            out.append(f"| {config} | {cpu:.2f} | {cpu / n * 1000:.1f} | {cpu / nvcc_cpu * 100:.2f} % |")
    out += ["", "`kbcc stats` of the last substituting build's KBCC_DIR:", "", "```", stats_text, "```", ""]
    return "\n".join(out)


def main():
    args = parse_args()
    args.kbcc, args.nvcc, args.project = (os.path.abspath(args.kbcc), os.path.abspath(args.nvcc),
                                          os.path.abspath(args.project))
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
