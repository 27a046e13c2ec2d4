#!/usr/bin/env bash
# Configures and builds one preset (default: release). Used by the two README commands.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
PRESET="${1:-release}"
cd "$ROOT"
JOBS="${TORCHSCOPE_JOBS:-$(nproc)}"
cmake --preset "$PRESET" >/dev/null
cmake --build --preset "$PRESET" -j "$JOBS"
