#!/usr/bin/env python3
"""Walks every command that `kbcc --help` lists, and every verb its usage
names, and prints one line per call: the arguments, the exit status and
whether stdout and stderr are empty.

Usage: help-walk.py KBCC
"""
import re
import subprocess
import sys

kbcc = sys.argv[1]


def call(args):
    r = subprocess.run([kbcc] + args, capture_output=True, text=True, timeout=60)
    out = "out" if r.stdout.strip() else "no-out"
    err = "err" if r.stderr.strip() else "no-err"
    print("%s: status %d %s %s" % (" ".join(args), r.returncode, out, err))
    return r


top = call(["--help"]).stdout
commands = re.findall(r"^  ([a-z]+) {2,}", top.split("Commands:")[1].split("\n\n")[0], re.M)
print("commands: %d" % len(commands))
for c in commands:
    usage = call([c, "--help"]).stdout
    call([c, "-h"])
    call([c, "--no-such-option"])
    verbs = sorted(set(re.findall(r"kbcc %s ([a-z][a-z-]+)" % c, usage)))
    for v in verbs:
        call([c, v, "--help"])
