#!/usr/bin/env python3
"""Strips a KB policy export down to its bare technique catalogue: the same
states and optimizations, but no evidence (stats), no insights, neutral
priors and alphabetical candidate lists, so nothing learned remains.

Usage: make_empty_kb.py IN.json OUT.json
"""
import json
import sys


def strip(doc):
    for state in doc.get("states", []):
        state["insights"] = []
        state["optimizations"] = sorted(state.get("optimizations", []))
    for opt in doc.get("optimizations", []):
        opt["insights"] = []
        opt["stats"] = {}
        opt["prior"] = {"success_rate": 0.5, "typical_speedup": 1.0}
        opt.pop("summary", None)
    doc.pop("summary", None)
    return doc


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    with open(sys.argv[1]) as f:
        doc = json.load(f)
    with open(sys.argv[2], "w") as f:
        json.dump(strip(doc), f, indent=1, sort_keys=True)


if __name__ == "__main__":
    main()
