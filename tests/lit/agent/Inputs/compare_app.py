#!/usr/bin/env python3
"""Compares two runs of the example app (examples/src/main.cu).

Each run prints "<kernel> ok|WRONG kernel time <ms> ms" lines and a total.
Prints one table row per kernel (before, after, ratio) and then:
  correct: all          when every kernel was correct in both runs
  total: faster|slower  comparing the total kernel time
"""
import re
import sys


def parse(path):
    rows, total = {}, None
    for line in open(path):
        m = re.match(r"(\S+)\s+(ok|WRONG)\s+kernel time ([0-9.]+) ms", line)
        if m:
            rows[m.group(1)] = (m.group(2) == "ok", float(m.group(3)))
        m = re.match(r"total kernel time ([0-9.]+) ms", line)
        if m:
            total = float(m.group(1))
    return rows, total


before, tb = parse(sys.argv[1])
after, ta = parse(sys.argv[2])
ok = bool(before) and before.keys() == after.keys()
print("| kernel | before_ms | after_ms | speedup |")
print("|---|---|---|---|")
for name in sorted(before):
    b_ok, b = before[name]
    a_ok, a = after.get(name, (False, 0.0))
    ok = ok and b_ok and a_ok
    print("| %s | %.4f | %.4f | %.2f |" % (name, b, a, b / a if a else 0.0))
if tb and ta:
    print("| total | %.4f | %.4f | %.2f |" % (tb, ta, tb / ta))
print("correct: %s" % ("all" if ok else "NOT ALL"))
print("total: %s" % ("faster" if tb and ta and ta < tb else "slower"))
