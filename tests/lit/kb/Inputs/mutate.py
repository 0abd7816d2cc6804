"""mutate.py GOOD.json OUTDIR: writes one malformed copy of a KB per case."""
import copy
import json
import sys

good = json.load(open(sys.argv[1]))
out = sys.argv[2]


def write(name, edit):
    doc = copy.deepcopy(good)
    edit(doc)
    json.dump(doc, open(f"{out}/{name}.json", "w"), indent=1)


write("bad-category", lambda d: d["optimizations"][0].__setitem__("category", "speed"))
write("missing-signature", lambda d: d["states"][1].pop("signature"))
write("negative-attempts", lambda d: d["optimizations"][2]["stats"]["sm_90"]["states"].__setitem__(
    "dram_bandwidth_bound", {"contributors": {"alice": {"attempts": -3, "successes": 0}}}))
write("unknown-field", lambda d: d["states"][0].__setitem__("bottleneck", "memory"))
write("bad-mechanical", lambda d: d["optimizations"][0].__setitem__("mechanical", "inline_everything"))
write("dangling", lambda d: d["states"][0]["optimizations"].insert(0, "does_not_exist"))
write("version", lambda d: d.__setitem__("version", 7))
