#!/usr/bin/env bash
# Builds the libFuzzer targets (the `fuzz` preset: clang-14, ASan + UBSan) and runs one of them.
# usage: scripts/fuzz.sh [TARGET] [SECONDS]     (defaults: fuzz_ingest, 600)
#   TARGET: any target of docs/BUILDING.md, "Fuzzing" (fuzz_ingest, fuzz_index,
#           fuzz_output_names, fuzz_report_text, fuzz_c_api).
# The corpus lives in build/fuzz/corpus/TARGET and is seeded from the committed logs, so a run
# continues where the last one stopped. A crash leaves its input in build/fuzz/ as crash-*;
# replay it with `build/fuzz/fuzz/TARGET crash-...`. scripts/fuzz-all.sh does the work.
set -euo pipefail
exec "$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/fuzz-all.sh" "${2:-600}" "${1:-fuzz_ingest}"
