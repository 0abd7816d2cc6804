#!/usr/bin/env python3
"""reaper.py PID PATTERN: kills test server PID after $KBCC_TEST_SERVER_LIFETIME
seconds (default 600) if its command line still contains PATTERN, so a server
left behind by a failed test goes away by itself.

It closes every inherited descriptor first: a reaper that kept the test
runner's pipes open would make ctest/ninja wait for it."""
import os
import sys
import time

os.closerange(3, 65536)
pid, pattern = int(sys.argv[1]), sys.argv[2]
time.sleep(int(os.environ.get("KBCC_TEST_SERVER_LIFETIME", "600")))
try:
    with open("/proc/%d/cmdline" % pid, "rb") as f:
        if pattern.encode() in f.read():
            os.kill(pid, 15)
except OSError:
    pass
