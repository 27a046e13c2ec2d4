#!/usr/bin/env bash
# README command 2: the same set-up as quickstart.sh, then every test, ending with CTest's
# summary. Idempotent. `.ci/run` calls this.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$ROOT/scripts/install-deps.sh"
"$ROOT/scripts/build.sh" release
cd "$ROOT"
export QT_QPA_PLATFORM=offscreen
ctest --preset release -j "${TORCHSCOPE_JOBS:-$(nproc)}" --timeout 900
