#!/usr/bin/env python3
"""Transform reach: how many kernels of a code base each mechanical transform accepts.

Every `.cu` file under the given directories is parsed with `kbcc explain --json`;
every kernel kbcc may optimize is then offered to every transform listed by
`kbcc optimize --help` with `kbcc optimize --transform ID --source FILE --kernel NAME`.
Exit status 0 means the transform applies; otherwise its refusal message is kept.
Kernels that kbcc cannot optimize (a parse error inside, or another
not-optimizable reason) and files whose parse fails are counted and listed apart.
Nothing runs on a GPU; the report is Markdown. With --compile, every accepted
transform's output is compiled with nvcc (the same flags, `-c`); with
--settings too, so is the output of each other value of each parameter it
lists, one changed at a time. This counts the rewrites that would fail before
reaching the GPU.

A file named <A>_<B>_<name>.cu is labelled "LS-CAT data/kernels/<A>/<B>/<name>.cu"
(the layout of the LS-CAT dataset); any other file by its path under its DIR.

Usage: bench/coverage/reach.py [--kbcc PATH] [--flags "NVCC FLAGS"] [--compile [--settings]] [--out FILE.md] DIR...
"""
import argparse
import collections
import concurrent.futures
import datetime
import functools
import json
import os
import re
import shlex
import subprocess
import sys
import tempfile

TIMEOUT_S = 60
WORKERS = 2
HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.normpath(os.path.join(HERE, "..", ".."))
LSCAT_NAME = re.compile(r"^(\d+)_(\d+)_(.+\.cu)$")
PARAMETER = re.compile(r"^// kbcc: parameter (\S+) = (\S+) of (.+)$", re.M)
# What the optimization loop would supply from a capture and a profile, which
# `--transform` alone lacks: a launch's block for launch_bounds, a register count for maxnreg.
EXTRA_ARGS = {"launch_bounds": ["--block", "256"], "maxnreg": ["--param", "registers=64"]}


def find_kbcc(given):
    """Path of the kbcc to run: `given`, else $KBCC, else the build's bin/kbcc, else `kbcc` from PATH."""
    if given:
        return given
    if os.environ.get("KBCC"):
        return os.environ["KBCC"]
    built = os.path.join(REPO, "build", "bin", "kbcc")
    return built if os.access(built, os.X_OK) else "kbcc"


def transform_ids(kbcc):
    """Transform ids in the order `kbcc optimize --help` lists them after "IDs:"; raises if none."""
    text = subprocess.run([kbcc, "optimize", "--help"], capture_output=True, text=True).stdout
    start = text.find("IDs:")
    if start < 0:
        raise RuntimeError("kbcc optimize --help lists no transform IDs")
    end = text.find("(", start)
    ids = [t.strip() for t in text[start + 4:end].replace("\n", " ").split(",")]
    return [t for t in ids if re.fullmatch(r"[a-z_0-9]+", t)]


def optimize_flags(nvcc_flags):
    """The parse flags of `kbcc optimize --transform` (--arch, -I, -D, -U, -std) taken from nvcc flags."""
    out, args, i = [], shlex.split(nvcc_flags), 0
    while i < len(args):
        a = args[i]
        m = re.fullmatch(r"(?:-arch|--gpu-architecture|-code)=(?:sm|compute)_(\w+)", a)
        if m:
            out += ["--arch", "sm_" + m.group(1)]
        elif a in ("-arch", "--gpu-architecture") and i + 1 < len(args):
            i += 1
            out += ["--arch", "sm_" + args[i].split("_", 1)[-1]]
        elif a in ("-I", "-D", "-U") and i + 1 < len(args):
            out += [a, args[i + 1]]
            i += 1
        elif a.startswith(("-I", "-D", "-U", "-std=")):
            out.append(a)
        i += 1
    return out


def source_files(dirs):
    """(label, path) of every .cu file under `dirs`, sorted by label; label as in the module docstring."""
    found = []
    for d in dirs:
        for root, _, files in os.walk(d):
            for f in files:
                if f.endswith(".cu"):
                    path = os.path.join(root, f)
                    m = LSCAT_NAME.match(f)
                    label = ("LS-CAT data/kernels/%s/%s/%s" % m.groups()) if m else os.path.relpath(path, d)
                    found.append((label, path))
    return sorted(found)


def explain(kbcc, path, nvcc_flags):
    """Kernels of `path` per `kbcc explain --json`: (kernels, error). Each kernel is
    {name, reason, diagnostic}; reason is "" when optimizable. error is a string when the parse failed."""
    try:
        r = subprocess.run([kbcc, "explain", "--json", path] + shlex.split(nvcc_flags),
                           capture_output=True, text=True, timeout=TIMEOUT_S)
    except subprocess.TimeoutExpired:
        return [], "explain timed out after %d s" % TIMEOUT_S
    try:
        data = json.loads(r.stdout)
    except ValueError:
        return [], first_line(r.stderr) or "explain exit %d, no JSON" % r.returncode
    errors = [d for d in data.get("diagnostics", []) if not d.get("tolerated")]
    kernels = []
    for k in data.get("kernels", []):
        reason = k.get("not_optimizable", "")
        inside = [d for d in errors if d.get("file") == k.get("file")
                  and k.get("line", 0) <= d.get("line", 0)]
        diag = (inside or errors or [{}])[0]
        text = "%s:%s: %s" % (os.path.basename(diag["file"]), diag.get("line"), diag["message"]) if diag else ""
        kernels.append({"name": k["qualified_name"], "reason": reason, "diagnostic": text if reason else ""})
    if not kernels and (r.returncode != 0 or errors):
        return [], (errors[0]["message"] if errors else first_line(r.stderr))
    return kernels, None


def first_line(text):
    """The first non-empty line of `text`, stripped ("" if none)."""
    return next((l.strip() for l in text.splitlines() if l.strip()), "")


def try_transform(kbcc, path, kernel, tid, opt_flags, nvcc_flags=None, settings=False):
    """Outcome of one `kbcc optimize --transform`: (accepted, message). message is the refusal
    with its "kbcc optimize: ID (class): " prefix removed, or names a timeout or crash; when
    the transform applies and `nvcc_flags` is given, message is compile_output()'s verdict."""
    cmd = [kbcc, "optimize", "--transform", tid, "--source", path, "--kernel", kernel]
    cmd += opt_flags + EXTRA_ARGS.get(tid, [])
    try:
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=TIMEOUT_S)
    except subprocess.TimeoutExpired:
        return False, "TIMEOUT after %d s" % TIMEOUT_S
    if r.returncode == 0:
        return True, compile_settings(r.stdout, cmd, path, nvcc_flags, settings) if nvcc_flags is not None else ""
    lines = [l.strip() for l in r.stderr.splitlines() if l.strip()]
    refusal = next((l for l in lines if l.startswith("kbcc optimize: ")), lines[-1] if lines else "")
    msg = re.sub(r"^kbcc optimize: \S+ \([^)]*\): ", "", refusal)
    if r.returncode not in (1, 2):
        msg = "CRASH (exit %d): %s" % (r.returncode, msg)
    return False, msg


def compile_settings(text, cmd, path, nvcc_flags, settings):
    """compile_output() of `text`, the output of `cmd`, then, when `settings`, of each other value of
    each parameter the output lists (`// kbcc: parameter NAME = VALUE of V1 V2 ...`), one parameter
    changed at a time as a search's step would; the first failure, its setting named, or ""."""
    if not original_compiles(path, nvcc_flags):
        return ""
    failure = compile_output(text, path, nvcc_flags)
    others = [(name, v) for name, value, values in PARAMETER.findall(text) for v in values.split() if v != value]
    for name, other in others if settings else []:
        if failure:
            break
        try:
            r = subprocess.run(cmd + ["--param", "%s=%s" % (name, other)], capture_output=True, text=True,
                               timeout=TIMEOUT_S)
        except subprocess.TimeoutExpired:
            return "TIMEOUT after %d s with %s=%s" % (TIMEOUT_S, name, other)
        if r.returncode == 0:
            failure = compile_output(r.stdout, path, nvcc_flags)
            failure = failure and failure.replace("COMPILE: ", "COMPILE (%s=%s): " % (name, other), 1)
    return failure


@functools.lru_cache(maxsize=None)
def original_compiles(path, nvcc_flags):
    """Whether `path` itself compiles with `nvcc nvcc_flags -c`: only then do its rewrites count."""
    with open(path) as f:
        return compile_output(f.read(), path, nvcc_flags) == ""


def compile_output(text, path, nvcc_flags):
    """"" when `text` (a transformed copy of `path`) compiles with `nvcc nvcc_flags -c`, run
    with the source's directory on the include path; else "COMPILE: " and nvcc's first error."""
    nvcc = os.path.join(os.environ.get("CUDA_HOME", "/usr/local/cuda"), "bin", "nvcc")
    with tempfile.TemporaryDirectory() as tmp:
        src = os.path.join(tmp, os.path.basename(path))
        with open(src, "w") as f:
            f.write(text)
        cmd = [nvcc] + shlex.split(nvcc_flags) + ["-I", os.path.dirname(os.path.abspath(path)),
                                                   "-c", "-o", os.path.join(tmp, "out.o"), src]
        try:
            r = subprocess.run(cmd, capture_output=True, text=True, timeout=TIMEOUT_S * 3)
        except subprocess.TimeoutExpired:
            return "COMPILE: nvcc timed out"
    if r.returncode == 0:
        return ""
    errors = [l for l in r.stderr.splitlines() if "error" in l]
    return "COMPILE: " + re.sub(r"^\S*/", "", (errors or [first_line(r.stderr)])[0])


def cell(text, limit=220):
    """`text` safe for a Markdown table cell, shortened to `limit` characters."""
    text = text.replace("|", "\\|").replace("\n", " ")
    return text if len(text) <= limit else text[:limit - 1] + "…"


def report(cmdline, ids, files, failed_files, kernels, results, compiled, settings):
    """The Markdown report. kernels: [(label, path, kernel)] as explain() gives them (optimizable
    when kernel["reason"] is ""); results[(path, name, tid)] = (accepted, message) for the optimizable;
    `compiled`: the nvcc flags accepted outputs were compiled with (their message then says how), or None;
    `settings`: whether every parameter value was compiled too."""
    try:
        commit = subprocess.run(["git", "-C", REPO, "rev-parse", "--short", "HEAD"],
                                capture_output=True, text=True).stdout.strip()
    except OSError:
        commit = "unknown"
    ok = [k for k in kernels if not k[2]["reason"]]
    unbuilt = sorted({label for (label, p, _) in ok if compiled and not original_compiles(p, compiled)})
    blocked = [k for k in kernels if k[2]["reason"]]
    compile_note = ["Output compiles: of the kernels accepted in files that compile as given (%d of the %d files "
                    "with optimizable kernels do not: %s), those whose rewrite compiles with nvcc with the "
                    "transform's first setting%s."
                    % (len(unbuilt), len({k[1] for k in ok}), ", ".join(unbuilt) or "none",
                       " and with each other value of each of its parameters" if settings else ""), ""] if compiled else []
    out = ["# Transform reach: kernels each mechanical transform accepts", "",
           "Generated by `bench/coverage/reach.py` on %s, kbcc commit %s." % (datetime.date.today(), commit),
           "", "```", cmdline, "```", "",
           "Each kernel kbcc may optimize is offered to each transform with `kbcc optimize --transform ID "
           "--source FILE --kernel NAME`; the arguments added (%s) stand in for the captured launch and "
           "the profile the optimization loop would have." % ", ".join("`%s`: `%s`" % (t, " ".join(a))
                                                                      for t, a in sorted(EXTRA_ARGS.items())), "",
           "%d `.cu` files, %d kernels found: %d optimizable (offered to every transform), "
           "%d not optimizable (listed below), %d files whose parse failed."
           % (len(files), len(kernels), len(ok), len(blocked), len(failed_files)), "",
           ] + compile_note + [
           "## Kernels accepted per transform", "",
           "| transform | kernels accepted | share |" + (" output compiles |" if compiled else ""),
           "|---|---:|---:|" + ("---:|" if compiled else "")]
    broken = []
    checked = [k for k in ok if not compiled or original_compiles(k[1], compiled)]
    for tid in ids:
        acc = [(label, k) for (label, p, k) in ok if results[(p, k["name"], tid)][0]]
        row = "| `%s` | %d of %d | %.0f%% |" % (tid, len(acc), len(ok), 100.0 * len(acc) / len(ok) if ok else 0)
        if compiled:
            acc = [(label, p, k) for (label, p, k) in checked if results[(p, k["name"], tid)][0]]
            bad = [(label, k, results[(p, k["name"], tid)][1]) for (label, p, k) in acc
                   if results[(p, k["name"], tid)][1]]
            broken += [(tid, label, k, msg) for (label, k, msg) in bad]
            row += " %d of %d |" % (len(acc) - len(bad), len(acc))
        out.append(row)
    if broken:
        out += ["", "## Accepted, but the output does not compile", "",
                "| transform | source | kernel | nvcc |", "|---|---|---|---|"]
        out += ["| `%s` | %s | `%s` | %s |" % (t, label, k["name"], cell(m)) for (t, label, k, m) in broken]
    out += ["", "## Most frequent refusals per transform (top 3)", "",
            "| transform | refusal | kernels |", "|---|---|---:|"]
    for tid in ids:
        c = collections.Counter(results[(p, k["name"], tid)][1] for (_, p, k) in ok
                                if not results[(p, k["name"], tid)][0])
        for msg, n in c.most_common(3):
            out.append("| `%s` | %s | %d |" % (tid, cell(msg), n))
    out += ["", "## Per kernel", "", "| source | kernel | accepted transforms |", "|---|---|---|"]
    for (label, p, k) in ok:
        acc = [t for t in ids if results[(p, k["name"], t)][0]]
        out.append("| %s | `%s` | %s |" % (label, k["name"], ", ".join(acc) if acc else "none"))
    if blocked or failed_files:
        out += ["", "## Not offered: kernels kbcc does not optimize, files that do not parse", "",
                "| source | kernel | reason |", "|---|---|---|"]
        for (label, _, k) in blocked:
            out.append("| %s | `%s` | %s: %s |" % (label, k["name"], k["reason"], cell(k["diagnostic"])))
        for (label, err) in failed_files:
            out.append("| %s | (file) | %s |" % (label, cell(err)))
    odd = sorted({m for m in (r[1] for r in results.values()) if m.startswith(("TIMEOUT", "CRASH"))})
    if odd:
        out += ["", "## Timeouts and crashes", ""] + ["- %s" % cell(m, 400) for m in odd]
    return "\n".join(out) + "\n"


def main():
    """Parse the arguments, run every (kernel, transform) pair, write the report; exit 0."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--kbcc")
    ap.add_argument("--flags", default="-arch=sm_90", help='nvcc flags of the parse (default "-arch=sm_90")')
    ap.add_argument("--compile", action="store_true", help="compile every accepted transform's output with nvcc")
    ap.add_argument("--settings", action="store_true", help="with --compile: every parameter value too")
    ap.add_argument("--out", help="write the Markdown report here (default: stdout)")
    ap.add_argument("dirs", nargs="+")
    args = ap.parse_args()
    kbcc = find_kbcc(args.kbcc)
    ids = transform_ids(kbcc)
    opt_flags = optimize_flags(args.flags)
    files = source_files(args.dirs)
    kernels, failed_files = [], []
    for label, path in files:
        ks, err = explain(kbcc, path, args.flags)
        if err:
            failed_files.append((label, err))
        kernels += [(label, path, k) for k in ks]
    jobs = [(p, k["name"], t) for (_, p, k) in kernels if not k["reason"] for t in ids]
    results = {}
    with concurrent.futures.ThreadPoolExecutor(max_workers=WORKERS) as pool:
        futures = {pool.submit(try_transform, kbcc, p, k, t, opt_flags,
                               args.flags if args.compile else None, args.settings): (p, k, t) for (p, k, t) in jobs}
        for i, f in enumerate(concurrent.futures.as_completed(futures), 1):
            results[futures[f]] = f.result()
            if i % 100 == 0:
                print("reach: %d of %d transform runs" % (i, len(jobs)), file=sys.stderr)
    cmdline = "bench/coverage/reach.py " + " ".join(shlex.quote(a) for a in sys.argv[1:])
    text = report(cmdline, ids, files, failed_files, kernels, results, args.flags if args.compile else None,
                  args.settings)
    if args.out:
        with open(args.out, "w") as f:
            f.write(text)
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
