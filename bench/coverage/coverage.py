#!/usr/bin/env python3
"""Kernel coverage benchmark: how many of the `__global__` kernels of a code
base kbcc finds, and how many it may optimize, with every loss explained.

Every `.cu` file under the given directories is parsed by `kbcc explain
--json` with the flags of its build: those of a compile_commands.json found
in DIR or DIR/build (the entry's arguments, run in its directory), else the
flags given with --flags. The `__global__` definitions are counted in the
text of the sources and headers under DIR (comments, strings and `#if 0`
skipped; definitions inside #define bodies are counted per expansion that
kbcc reports as macro-generated) and matched by name with the kernels kbcc
found. Each definition ends in exactly one row:

  optimizable                  found, a variant may replace it
  <not_optimizable reason>     found, kbcc lists it but leaves it alone
  <extraction error code>      the unit's parse failed (the build falls back to nvcc)
  template-never-instantiated  a kernel template no unit instantiates (nvcc compiles none either)
  header-not-included          a header kernel no parsed unit includes
  not-found                    none of the above: a coverage bug

Usage: bench/coverage/run.sh [--kbcc PATH] [--flags "NVCC FLAGS"] [--arch sm_XX]
                             [--per-file] [--out FILE.md] DIR...
"""
import argparse
import collections
import json
import os
import re
import shlex
import subprocess
import sys

# Reasons kbcc documents as out of scope (docs/kernels.md, "What kbcc leaves alone").
OUT_OF_SCOPE = {"macro-generated", "kernel-in-header", "template-never-instantiated", "header-not-included"}
SOURCE_EXT = (".cu",)
# Spellings that take a parenthesised argument between __global__ and the kernel's name.
ATTRIBUTES = {"__launch_bounds__", "__cluster_dims__", "__maxnreg__", "__attribute__", "__declspec", "alignas",
              "__align__", "__noinline__", "__forceinline__"}
HEADER_EXT = (".cuh", ".h", ".hpp", ".hh", ".inl", ".cuinl")


def strip_code(text):
    """Comments and string/char literals blanked (newlines kept), line splices joined."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append("".join(ch if ch == "\n" else " " for ch in text[i:j]))
            i = j
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            out.append(c + " " * (min(j, n) - i - 1) + (c if j < n else ""))
            i = j + 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def active_lines(text):
    """Per line: (in a #define body, inside an `#if 0` block)."""
    flags, depth_zero, stack, in_define = [], 0, [], False
    for line in text.split("\n"):
        s = line.strip()
        starts_define = re.match(r"#\s*define\b", s) is not None
        define = in_define or starts_define
        directive = s.startswith("#")
        if directive:
            if re.match(r"#\s*if\s+0\b", s):
                stack.append(True)
                depth_zero += 1
            elif re.match(r"#\s*if", s):
                stack.append(False)
            elif re.match(r"#\s*endif", s) and stack:
                depth_zero -= stack.pop()
            elif re.match(r"#\s*(else|elif)", s) and stack and stack[-1]:
                stack[-1] = False
                depth_zero -= 1
        flags.append((define, depth_zero > 0))
        in_define = define and line.rstrip().endswith("\\")
    return flags


def global_definitions(path):
    """[(name, line, is_template)] of the __global__ function definitions in `path`."""
    try:
        raw = open(path, encoding="utf-8", errors="replace").read()
    except OSError:
        return []
    text = strip_code(raw)
    flags = active_lines(text)
    out = []
    for m in re.finditer(r"\b__global__\b", text):
        line = text.count("\n", 0, m.start())
        if flags[line][0] or flags[line][1]:
            continue
        depth, j, name = 0, m.end(), None
        while j < len(text):
            ch = text[j]
            if ch == "(":
                if depth == 0 and name is None:
                    ident = re.search(r"([A-Za-z_]\w*)\s*$", text[m.end():j])
                    name = ident.group(1) if ident else None
                    if name in ATTRIBUTES:  # __launch_bounds__(256) and the like: not the name
                        name = None
                depth += 1
            elif ch == ")":
                depth -= 1
            elif depth == 0 and ch in ";{":
                break
            j += 1
        if j >= len(text) or text[j] != "{" or not name:
            continue  # a declaration
        before = text[max(0, m.start() - 400):m.start()]
        tail = re.split(r"[;{}]", before)[-1]
        is_template = re.search(r"\btemplate\s*<", tail) is not None
        out.append((name, line + 1, is_template))
    return out


def base_name(qualified):
    """ns::map_kernel<float, Relu<float>> -> map_kernel."""
    s, depth, out = qualified, 0, []
    for ch in s:
        if ch == "<":
            depth += 1
        elif ch == ">":
            depth -= 1
        elif depth == 0:
            out.append(ch)
    name = "".join(out).strip()
    return name.split("::")[-1].strip()


def load_compile_commands(directory):
    for candidate in (os.path.join(directory, "compile_commands.json"),
                      os.path.join(directory, "build", "compile_commands.json")):
        if os.path.exists(candidate):
            with open(candidate) as f:
                entries = json.load(f)
            table = {}
            for e in entries:
                argv = e.get("arguments") or shlex.split(e.get("command", ""))
                where = e.get("directory", os.path.dirname(candidate))
                path = os.path.realpath(os.path.join(where, e["file"]))
                table[path] = (where, argv)
            return table, candidate
    return {}, None


def nvcc_flags_of(argv, source):
    """The flags of a compile command for `kbcc explain`: compiler, -c, -o X and the source dropped."""
    out, skip = [], False
    for i, a in enumerate(argv[1:], 1):
        if skip:
            skip = False
            continue
        if a in ("-o", "--output-file"):
            skip = True
            continue
        if a in ("-c", "--compile") or a.startswith("-o") and len(a) > 2 and not a.startswith("-opt"):
            continue
        if os.path.realpath(a) == source or a == os.path.basename(source):
            continue
        out.append(a)
    return out


def explain(kbcc, source, flags, cwd, arch):
    argv = [kbcc, "explain", "--json"] + (["--arch", arch] if arch else []) + flags + [source]
    r = subprocess.run(argv, cwd=cwd, capture_output=True, text=True)
    if r.returncode == 0 and r.stdout.strip():
        return json.loads(r.stdout.splitlines()[0]), None, None
    err = r.stderr.strip().splitlines()
    last = err[-1] if err else "kbcc explain exited %d" % r.returncode
    m = re.search(r"\(([a-z-]+)\)\s*$", last)
    return None, m.group(1) if m else "explain-failed", last


def walk(directory, exts):
    for root, dirs, files in os.walk(directory):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        for f in sorted(files):
            if f.endswith(exts):
                yield os.path.realpath(os.path.join(root, f))


class Coverage:
    def __init__(self):
        self.rows = []  # (file, line, name, outcome, detail)
        self.files = 0
        self.failed_files = []

    def add(self, path, line, name, outcome, detail=""):
        self.rows.append((path, line, name, outcome, detail))


def run_dir(args, directory, cov):
    table, cc = load_compile_commands(directory)
    found = collections.defaultdict(list)  # (file, name) -> [(line, reason)]
    units_failed = {}
    for source in walk(directory, SOURCE_EXT):
        cov.files += 1
        if source in table:
            cwd, argv = table[source]
            flags = nvcc_flags_of(argv, source)
        else:
            cwd, flags = os.getcwd(), shlex.split(args.flags)
        x, code, message = explain(args.kbcc, source, flags, cwd, args.arch)
        if x is None:
            units_failed[source] = (code, message)
            cov.failed_files.append((source, code, message))
            continue
        for k in x["kernels"]:
            f = os.path.realpath(k["file"]) if k["file"] else source
            found[(f, base_name(k["qualified_name"]))].append((k["line"], k["not_optimizable"]))
    definitions = []
    for path in walk(directory, SOURCE_EXT + HEADER_EXT):
        for name, line, is_template in global_definitions(path):
            definitions.append((path, name, line, is_template))
    claimed = set()
    for path, name, line, is_template in definitions:
        hits = found.get((path, name), [])
        lines = sorted({l for l, _ in hits})
        # The definition at this line (by name; overloads take the nearest found line).
        match = min(lines, key=lambda l: abs(l - line)) if lines else None
        if match is not None and (path, name, match) not in claimed:
            claimed.add((path, name, match))
            reasons = [r for l, r in hits if l == match]
            outcome = "optimizable" if "" in reasons else collections.Counter(reasons).most_common(1)[0][0]
            cov.add(path, line, name, outcome)
        elif path in units_failed:
            cov.add(path, line, name, units_failed[path][0], units_failed[path][1])
        elif is_template:
            cov.add(path, line, name, "template-never-instantiated")
        elif path.endswith(HEADER_EXT):
            cov.add(path, line, name, "header-not-included")
        else:
            cov.add(path, line, name, "not-found")
    # Kernels that exist only as macro expansions (no __global__ outside a #define).
    for (path, name), hits in found.items():
        for line in sorted({l for l, r in hits if r == "macro-generated"}):
            if (path, name, line) not in claimed:
                claimed.add((path, name, line))
                cov.add(path, line, name, "macro-generated")
    return cc


def pct(a, b):
    return "%.1f %%" % (100.0 * a / b) if b else "-"


def report(args, cov, sources):
    total = len(cov.rows)
    by = collections.Counter(r[3] for r in cov.rows)
    optimizable = by.get("optimizable", 0)
    lost_to_parse = sum(v for k, v in by.items() if k.startswith("parse-") and k != "parse-error-in-kernel")
    found = total - lost_to_parse - by.get("not-found", 0) - by.get("template-never-instantiated", 0) - by.get(
        "header-not-included", 0)
    out_of_scope = sum(v for k, v in by.items() if k in OUT_OF_SCOPE)
    lines = []
    w = lines.append
    w("| measure | kernels | share |")
    w("|---|---|---|")
    w("| `.cu` units parsed | %d (%d failed) | |" % (cov.files, len(cov.failed_files)))
    w("| `__global__` definitions | %d | 100 %% |" % total)
    w("| found by kbcc | %d | %s |" % (found, pct(found, total)))
    w("| optimizable | %d | %s |" % (optimizable, pct(optimizable, total)))
    w("| out of scope by design (reasons marked below) | %d | %s |" % (out_of_scope, pct(out_of_scope, total)))
    w("| **optimizable of in-scope kernels** | %d / %d | **%s** |" % (optimizable, total - out_of_scope,
                                                                   pct(optimizable, total - out_of_scope)))
    w("")
    w("| outcome | kernels | out of scope | first kernel (file:line) |")
    w("|---|---|---|---|")
    firsts = {}
    for path, line, name, outcome, detail in cov.rows:
        firsts.setdefault(outcome, (path, line, name, detail))
    for outcome, n in sorted(by.items(), key=lambda kv: (-kv[1], kv[0])):
        path, line, name, detail = firsts[outcome]
        where = "%s (%s:%d)" % (name, os.path.relpath(path, sources), line)
        if detail:  # the failure message, with paths relative to the sources
            where += "<br>" + detail.replace(sources + "/", "").replace("|", "\\|")[:400]
        w("| %s | %d | %s | %s |" % (outcome, n, "yes" if outcome in OUT_OF_SCOPE else "", where))
    if args.per_file:
        w("")
        w("| file | definitions | optimizable | other outcomes |")
        w("|---|---|---|---|")
        per = collections.defaultdict(collections.Counter)
        for path, line, name, outcome, detail in cov.rows:
            per[path][outcome] += 1
        for path in sorted(per):
            c = per[path]
            others = ", ".join("%s %d" % (k, v) for k, v in sorted(c.items()) if k != "optimizable")
            w("| %s | %d | %d | %s |" % (os.path.relpath(path, sources), sum(c.values()), c.get("optimizable", 0),
                                         others or "-"))
    return "\n".join(lines) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--kbcc", default=os.environ.get("KBCC", "kbcc"))
    ap.add_argument("--flags", default="-arch=sm_90",
                    help="nvcc flags for units without a compile_commands.json (one flag: --flags=-arch=sm_80)")
    ap.add_argument("--arch", default="", help="parse for this arch only (default: the archs of the flags)")
    ap.add_argument("--per-file", action="store_true")
    ap.add_argument("--out", default="", help="also write the tables to this Markdown file")
    ap.add_argument("dirs", nargs="+")
    args = ap.parse_args()
    cov = Coverage()
    sources = os.path.commonpath([os.path.realpath(d) for d in args.dirs])
    used = []
    for d in args.dirs:
        if not os.path.isdir(d):
            sys.exit("bench/coverage: %s: not a directory" % d)
        cc = run_dir(args, d, cov)
        used.append("%s (flags from %s)" % (d, cc if cc else "--flags " + shlex.quote(args.flags)))
    text = "Sources: " + "; ".join(used) + "\n\n" + report(args, cov, sources)
    for path, code, message in cov.failed_files:
        text += "\nparse failed: %s: %s\n" % (os.path.relpath(path, sources), message.replace(sources + "/", ""))
    sys.stdout.write(text)
    if args.out:
        with open(args.out, "w") as f:
            f.write(text)
    return 0 if not any(r[3] == "not-found" for r in cov.rows) else 1


if __name__ == "__main__":
    sys.exit(main())
