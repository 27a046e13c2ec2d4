#!/usr/bin/env bash
# Builds the libFuzzer targets (the `fuzz` preset: clang-14, ASan + UBSan) and runs one of them.
# usage: scripts/fuzz.sh [TARGET] [SECONDS]     (defaults: fuzz_ingest, 600)
#   TARGET: fuzz_ingest (bytes -> whole ingest -> index -> every read query) or
#           fuzz_report_text (bytes -> highlighter and HTML escaping).
# The corpus lives in build/fuzz/corpus/TARGET and is seeded from the committed logs, so a run
# continues where the last one stopped. A crash leaves its input in build/fuzz/ as crash-*;
# replay it with `build/fuzz/fuzz/TARGET crash-...`.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
target="${1:-fuzz_ingest}"
seconds="${2:-600}"
cd "$root"
cmake --preset fuzz >/dev/null
cmake --build --preset fuzz --target "$target"
corpus="build/fuzz/corpus/$target"
mkdir -p "$corpus"
if [ -z "$(ls -A "$corpus")" ]; then
  # Seeds: real logs cut into pieces small enough for the fuzzer to mutate usefully.
  n=0
  for log in samples/logs/*.log tests/data/pytorch-2.11/*/*.log; do
    [ -f "$log" ] || continue
    split -b 16k -d -a 4 "$log" "$corpus/seed_${n}_"
    n=$((n + 1))
  done
fi
cd build/fuzz
echo "fuzzing $target for $seconds s (corpus: $corpus)"
"./fuzz/$target" -max_total_time="$seconds" -max_len=65536 -timeout=30 -rss_limit_mb=2048 \
  -print_final_stats=1 "corpus/$target"
