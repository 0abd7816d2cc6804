#!/usr/bin/env python3
"""import-variant.py KBCC HASH ARCH SOURCE_FILE: stores SOURCE_FILE as a variant
of kernel HASH for ARCH with `kbcc cache import-variant` (validation and timing
evidence are placeholders). Record ids are XXH3-128, which Python's standard
library lacks, so the id is taken from the store's refusal of a record without one."""
import json
import re
import subprocess
import sys
import tempfile

kbcc, kernel_hash, arch, source_file = sys.argv[1:5]
# The kernel's name as the variant defines it (builds look variants up by the names a unit spells).
name = re.search(r"__global__\s+(?:\w+\s+)*?(\w+)\s*\(", open(source_file).read()).group(1)
record = {
    "format": "kbcc-variant", "version": 1, "id": "", "kernel_hash": kernel_hash, "arch": arch,
    "qualified_name": name, "source": open(source_file).read(), "toolchain": "",
    "provenance": {"trajectory": "t", "optimizations": [], "kb_snapshot": "", "llm_model": "",
                   "contributor": "test", "created": 1},
    "validation": {"captures_checked": 1, "max_error": 0.0, "tolerance": 1e-6, "sanitizer": "clean", "notes": ""},
    "timing": {"baseline_median_us": 10.0, "baseline_spread_us": 0.1, "variant_median_us": 5.0,
               "variant_spread_us": 0.1, "runs": 10, "speedup": 2.0, "gpu_name": "test", "driver": "0"},
}
with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
    json.dump(record, f)
first = subprocess.run([kbcc, "cache", "import-variant", f.name], capture_output=True, text=True)
m = re.search(r"expected ([0-9a-f]{32})", first.stderr + first.stdout)
if not m:
    sys.exit("unexpected answer from kbcc cache import-variant: " + first.stderr + first.stdout)
record["id"] = m.group(1)
with open(f.name, "w") as out:
    json.dump(record, out)
sys.exit(subprocess.run([kbcc, "cache", "import-variant", f.name]).returncode)
