"""evidence.py KB.json OUT.json CONTRIBUTOR N: adds N attempts of
vectorized_loads on sm_90 (state dram_bandwidth_bound) by CONTRIBUTOR, of
which the first half succeeded with speedup 1.5 (a contributor's counters)."""
import json
import math
import sys

doc = json.load(open(sys.argv[1]))
who, n = sys.argv[3], int(sys.argv[4])
ok = n // 2
buckets = [0] * 10
buckets[8] = ok  # 1.5 <= s < 2.0
for o in doc["optimizations"]:
    if o["id"] == "vectorized_loads":
        states = o["stats"].setdefault("sm_90", {"states": {}})["states"]
        states.setdefault("dram_bandwidth_bound", {"contributors": {}})["contributors"][who] = {
            "attempts": n, "successes": ok, "compile_failures": 0, "validation_failures": 0,
            "speedup": {"count": ok, "sum_log": ok * math.log(1.5), "sum_log_sq": ok * math.log(1.5) ** 2,
                        "min": 1.5 if ok else 0, "max": 1.5 if ok else 0, "buckets": buckets}}
json.dump(doc, open(sys.argv[2], "w"), indent=1)
