#!/usr/bin/env bash
# Installs the Debian packages the build needs, skipping those already present (idempotent).
# Run as root (or with sudo) on Debian 12. `--quickstart`: only what the first README command
# needs (no test, benchmark or fuzzing tools).
set -euo pipefail

# What the first README command builds and runs (the libraries, tlparse, the GUI, the samples).
PACKAGES=(
  cmake ninja-build g++ pkg-config
  ccache                 # rebuilds in a fresh clone reuse earlier objects (optional)
  libsimdjson-dev        # JSON parsing on the ingest hot path
  libsqlite3-dev         # the index
  zlib1g-dev             # payload compression in the index
  libssl-dev             # MD5 of payloads (OpenSSL's libcrypto)
  libxxhash-dev          # XXH3, the ingest's content hash
  libgraphviz-dev        # graph views' layout (cgraph + gvc; optional: a built-in layout without)
  llvm-14-dev            # CPU code generation (ORC JIT); see docs/BUILDING.md for why 14
  libgloo-dev            # the compiler's process group (compiler/distributed; optional)
  qt6-base-dev qt6-base-dev-tools libqt6sql6-sqlite libgl-dev # the GUI
)
# What the tests, benchmarks and fuzzers add (the second README command; not with --quickstart).
TEST_PACKAGES=(
  sqlite3                # the index's command-line shell, used by tests
  libdtl-dev             # the yardstick of bench_text_diff (optional; header-only)
  catch2                 # unit tests (Catch2 v2)
  clang-14 libclang-rt-14-dev # libFuzzer targets and sanitizers
  clang-format-14        # the format check (scripts/check-format.sh, CTest label format)
  xvfb xauth             # screenshots of the GUI in a real X server (optional; tests use offscreen)
  python3-torch          # PyTorch 1.13, the oracle of the compiler's differential test (optional)
  libopenblas0-pthread   # PyTorch 1.13's BLAS as a user would have it: the benchmarks' eager peer
                         # (without it, libblas.so.3 is the reference BLAS, several times slower)
)
if [[ "${1:-}" != "--quickstart" ]]; then
  PACKAGES+=("${TEST_PACKAGES[@]}")
fi

missing=()
for pkg in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$pkg")
  fi
done

if ((${#missing[@]} == 0)); then
  echo "install-deps: all ${#PACKAGES[@]} packages already installed"
  exit 0
fi

SUDO=""
if [[ $(id -u) -ne 0 ]]; then SUDO="sudo"; fi
echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq "${missing[@]}"
if [[ ! -x /usr/local/cuda/bin/nvcc ]]; then
  echo "install-deps: note: no CUDA Toolkit at /usr/local/cuda; configure with -DTORCHSCOPE_WITH_CUDA=OFF" >&2
fi
