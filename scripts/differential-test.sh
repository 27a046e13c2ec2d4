#!/usr/bin/env bash
# Differential test against PyTorch 1.13 (docs/COMPILER.md, "Checked against PyTorch"): N random
# programs (seeds FIRST .. FIRST+N-1) run eagerly and compiled by compiler_differential_programs,
# then replayed and compared in PyTorch by check_against_torch.py. Exit 77 (CTest's skip) when
# Debian's python3-torch is not installed.
#
#   scripts/differential-test.sh [N=2000] [FIRST_SEED=1]
#   TORCHSCOPE_DIFFERENTIAL_BIN=path/to/compiler_differential_programs   (default: build/release)
#   TORCHSCOPE_DIFFERENTIAL_KEEP=dir   keep the program descriptions there (to replay a failure)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
n="${1:-2000}"
first="${2:-1}"
bin="${TORCHSCOPE_DIFFERENTIAL_BIN:-$root/build/release/tests/compiler/compiler_differential_programs}"
if ! /usr/bin/python3 -c 'import torch' 2>/dev/null; then
  echo "SKIP: /usr/bin/python3 cannot import torch; install Debian's python3-torch (PyTorch 1.13)"
  exit 77
fi
if [[ ! -x "$bin" ]]; then
  echo "error: $bin not built (cmake --build build/release --target compiler_differential_programs)" >&2
  exit 2
fi
if [[ -n "${TORCHSCOPE_DIFFERENTIAL_KEEP:-}" ]]; then
  dir="$TORCHSCOPE_DIFFERENTIAL_KEEP"
  mkdir -p "$dir"
else
  dir="$(mktemp -d)"
  trap 'rm -rf "$dir"' EXIT
fi
"$bin" "$first" "$n" "$dir"
/usr/bin/python3 "$root/tests/compiler/differential/check_against_torch.py" "$dir"
