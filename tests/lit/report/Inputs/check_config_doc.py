#!/usr/bin/env python3
"""Reads `kbcc config --list` output on stdin and checks that docs/config.md
(argv[1]) documents every key it lists: a table row naming both the key and
its environment variable. Every key's variable is KBCC_<KEY IN CAPITALS>.
Prints 'documented: N keys' or one 'missing: ...' line per gap (exit 1)."""
import re
import sys


def main():
    listing = sys.stdin.read()
    doc = open(sys.argv[1]).read()
    rows = [line for line in doc.splitlines() if line.startswith("|")]
    envs = sorted(set(re.findall(r"\bKBCC_[A-Z0-9_]*[A-Z0-9]\b", listing)))
    missing = []
    for env in envs:
        key = env[len("KBCC_"):].lower()
        if not any(f"`{key}`" in row and f"`{env}`" in row for row in rows):
            missing.append(f"missing: {key} ({env}) has no row in {sys.argv[1]}")
    for m in missing:
        print(m)
    print(f"documented: {len(envs) - len(missing)} of {len(envs)} keys")
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main())
