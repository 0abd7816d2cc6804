#!/usr/bin/env bash
# Kernel coverage benchmark: `bench/coverage/run.sh [options] DIR...` runs every
# .cu under DIR through `kbcc explain` and prints the kernels found against the
# __global__ definitions, the share kbcc may optimize, and every reason a
# kernel is lost (see coverage.py for the options and the outcomes).
# kbcc: --kbcc PATH, else $KBCC, else the build's bin/kbcc, else kbcc in PATH.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
if [[ -z "${KBCC:-}" ]]; then
  for candidate in "$here/../../build/bin/kbcc" "$(command -v kbcc || true)"; do
    if [[ -n "$candidate" && -x "$candidate" ]]; then
      KBCC=$(cd "$(dirname "$candidate")" && pwd)/$(basename "$candidate")
      break
    fi
  done
fi
export KBCC="${KBCC:-kbcc}"
exec python3 "$here/coverage.py" "$@"
