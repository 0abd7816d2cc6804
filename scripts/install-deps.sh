#!/usr/bin/env bash
# Installs kbcc's build and test dependencies from Debian 12 packages, or
# stops with a message naming what is missing and how to get it.
#   scripts/install-deps.sh            build + test dependencies
#   scripts/install-deps.sh --check    only report what is missing
set -euo pipefail

PACKAGES=(
  cmake ninja-build g++ python3 git
  clang-19 libclang-19-dev libclang-cpp19-dev llvm-19-dev llvm-19-tools   # LibTooling, lit, FileCheck
  libzstd-dev liblmdb-dev lmdb-utils libxxhash-dev nlohmann-json3-dev                # stores, hashing, JSON
  libcurl4-openssl-dev libsodium-dev libhiredis-dev                       # LLM/remote clients, signatures
  libgtest-dev libgmock-dev                                               # unit tests
  redis-server nginx-light libnginx-mod-http-dav-ext                      # remote-store tests
  chromium                                                                # report rendering test
)

missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if [ ! -x /usr/local/cuda/bin/nvcc ]; then
  echo "kbcc: CUDA 13 is required at /usr/local/cuda (nvcc, CUPTI); it is not a Debian package." >&2
  echo "      Install the CUDA 13.0 toolkit there, then run this again." >&2
  exit 1
fi

if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi
if [ "${1:-}" = "--check" ]; then
  echo "kbcc: missing Debian packages: ${missing[*]}" >&2
  exit 1
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null; then SUDO=sudo; else
    echo "kbcc: missing Debian packages: ${missing[*]}" >&2
    echo "      run as root: apt-get install ${missing[*]}" >&2
    exit 1
  fi
fi
echo "kbcc: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
if ! { $SUDO apt-get update -qq && $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null; }; then
  echo "kbcc: could not install: ${missing[*]}" >&2
  echo "      install them with apt-get and run this again." >&2
  exit 1
fi
