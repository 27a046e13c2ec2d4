#!/usr/bin/env bash
# Runs every libFuzzer target one after another at the lowest CPU priority (nice 19), each for
# SECONDS, and prints one summary line per target: seconds run, executions, corpus files and
# bytes, and whether it found a crash. Builds the `fuzz` preset's targets first.
# usage: scripts/fuzz-all.sh [SECONDS] [TARGET ...]     (default: 3600 s each, every target)
#   FUZZ_TIMEOUT=S: the per-input time limit (default 30 s; raise it on a loaded machine, where a
#   disk stall can otherwise be reported as a timeout)
# Corpora live in build/fuzz/corpus/<target> and grow across runs; crashes are left in
# build/fuzz/crash-* (replay: build/fuzz/fuzz/<target> build/fuzz/crash-...).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
seconds="${1:-3600}"
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] ||
  targets=(fuzz_ingest fuzz_index fuzz_output_names fuzz_report_text fuzz_c_api)
cd "$root"
if [ "${FUZZ_BUILD:-1}" = 1 ]; then # FUZZ_BUILD=0: run the binaries already built
  cmake --preset fuzz -DTORCHSCOPE_BUILD_COMPILER=OFF >/dev/null
  cmake --build build/fuzz -j2 --target "${targets[@]}"
fi
mkdir -p build/fuzz/logs
for target in "${targets[@]}"; do
  corpus="build/fuzz/corpus/$target"
  mkdir -p "$corpus"
  seeds=()
  case "$target" in
    fuzz_index | fuzz_output_names) seeds=(tests/tlparse/fuzz_index_seeds) ;;
    fuzz_c_api) seeds=(tests/tracer/fuzz_c_api_seeds) ;;
  esac
  if [ -z "$(ls -A "$corpus")" ]; then
    # Seeds: the committed logs cut into pieces small enough to mutate usefully.
    n=0
    for log in samples/logs/*.log tests/data/pytorch-2.11/*/*.log; do
      [ -f "$log" ] || continue
      split -b 16k -d -a 4 "$log" "$corpus/seed_${n}_"
      n=$((n + 1))
    done
  fi
  log="build/fuzz/logs/$target.log"
  start=$(date +%s)
  status=0
  (cd build/fuzz && nice -n 19 "./fuzz/$target" -max_total_time="$seconds" -max_len=65536 \
    -timeout="${FUZZ_TIMEOUT:-30}" -rss_limit_mb=2048 -print_final_stats=1 "corpus/$target" \
    "${seeds[@]/#/$root/}") >"$log" 2>&1 || status=$?
  ran=$(($(date +%s) - start))
  execs=$(awk '/stat::number_of_executed_units/ { print $NF }' "$log")
  files=$(find "$corpus" -type f | wc -l)
  bytes=$(du -sb "$corpus" | cut -f1)
  printf '%-18s %6d s  %10s execs  corpus %6d files %9d bytes  %s\n' "$target" "$ran" \
    "${execs:-?}" "$files" "$bytes" "$([ "$status" -eq 0 ] && echo clean || echo "FAILED (see $log)")"
done
