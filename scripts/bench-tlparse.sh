#!/usr/bin/env bash
# Benchmarks tlparse on logs made from the w08_transformer PyTorch trace: wall time, peak RSS
# and MB/s for `tlparse index` (ingest only) and for a full run (ingest + report).
# usage: scripts/bench-tlparse.sh [BUILD_DIR] [MB ...]
#   defaults: build/release, one 200 MB log; `scripts/bench-tlparse.sh build/release 200 1000`
#   also checks that a 1 GB log stays within the same memory bound. Needs ../shared (or
#   $TORCHSCOPE_SHARED_DIR).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${1:-$root/build/release}"
tlparse="$build/tlparse/tlparse"
shared="${TORCHSCOPE_SHARED_DIR:-$root/../shared}"
[ -x "$tlparse" ] || { echo "build tlparse first: ninja -C $build tlparse" >&2; exit 1; }
[ -d "$shared/corpus" ] || { echo "$shared is absent: the benchmark needs the shared corpus" >&2; exit 1; }

shift || true
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(200)

work="$(mktemp -d "${TMPDIR:-/tmp}/bench-tlparse.XXXXXX")"
trap 'rm -rf "$work"' EXIT

measure() {  # name, command...
  local name="$1"; shift
  /usr/bin/time -v "$@" 2>"$work/time.txt" >/dev/null || { cat "$work/time.txt" >&2; return 1; }
  local wall rss user sys
  wall=$(awk -F': ' '/Elapsed \(wall clock\)/ { n = split($2, t, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + t[i]; print s }' "$work/time.txt")
  rss=$(awk -F': ' '/Maximum resident set size/ { printf "%.1f", $2 / 1024 }' "$work/time.txt")
  user=$(awk -F': ' '/User time/ { print $2 }' "$work/time.txt")
  sys=$(awk -F': ' '/System time/ { print $2 }' "$work/time.txt")
  awk -v n="$name" -v w="$wall" -v r="$rss" -v u="$user" -v s="$sys" -v mb="$mb" 'BEGIN {
    printf "%-12s wall %.2f s  (%.0f MB/s)  cpu %.2f s  (%.0f MB/s per cpu-s)  peak RSS %s MB\n",
           n, w, mb / w, u + s, mb / (u + s), r }'
}

for size in "${sizes[@]}"; do
  rm -rf "$work/logs" "$work/index.sqlite" "$work/tl_out"
  "$shared/bin/scale-trace" "$shared"/corpus/pytorch-2.11/w08_transformer/*.log "$work/logs" --mb "$size" >/dev/null 2>&1
  log="$(ls "$work"/logs/*.log)"
  mb=$(awk -v b="$(stat -c %s "$log")" 'BEGIN { printf "%.1f", b / 1048576 }')
  echo "log: $mb MB ($(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg))"
  measure "index" "$tlparse" index "$log" -o "$work/index.sqlite"
  measure "full run" "$tlparse" "$log" -o "$work/tl_out" --overwrite --no-browser
done
