#!/usr/bin/env bash
# Benchmarks `tlparse DIR --all-ranks-html` on 32 ranks of 8 MB each, made by scale-trace from a
# rank log of the w12_ddp_cpu PyTorch trace (issue 14's setting), and before each run the ingest
# alone (`tlparse index` of the rank logs): wall time and peak RSS of each run, against tlparse
# 0.4.3's figures on this machine kind as the issue gives them (9.1 s, 224 MB; tlparse 0.4.3
# itself is not installed here, so the yardstick is that figure, not a side-by-side run).
# usage: scripts/bench-tlparse-ranks.sh [BUILD_DIR] [RUNS] [MB_PER_RANK] [RANKS]
#   defaults: build/release, 3 runs, 8 MB, 32 ranks. Needs ../shared (or $TORCHSCOPE_SHARED_DIR).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${1:-$root/build/release}"
runs="${2:-3}"
mb_per_rank="${3:-8}"
ranks="${4:-32}"
tlparse="$build/tlparse/tlparse"
shared="${TORCHSCOPE_SHARED_DIR:-$root/../shared}"
[ -x "$tlparse" ] || { echo "build tlparse first: cmake --build $build --target tlparse" >&2; exit 1; }
[ -d "$shared/corpus" ] || { echo "$shared is absent: the benchmark needs the shared corpus" >&2; exit 1; }

work="$(mktemp -d "${TMPDIR:-/tmp}/bench-tlparse-ranks.XXXXXX")"
trap 'rm -rf "$work"' EXIT

src="$(ls "$shared"/corpus/pytorch-2.11/w12_ddp_cpu/dedicated_log_torch_trace_rank_0_*.log | head -1)"
"$shared/bin/scale-trace" "$src" "$work/logs" --mb "$mb_per_rank" --ranks "$ranks" >/dev/null 2>&1
total_mb=$(du -sm "$work/logs" | cut -f1)
echo "input: $ranks rank logs of ~$mb_per_rank MB from $(basename "$src") ($total_mb MB in all)"
echo "yardstick: tlparse 0.4.3 --all-ranks-html on this machine kind: 9.1 s, 224 MB peak RSS (issue 14)"

for i in $(seq 1 "$runs"); do
  # The ingest alone (the whole run's memory peak before issue 14's lean ingest).
  /usr/bin/time -v "$tlparse" index "$work"/logs/*.log -o "$work/index.sqlite" \
    >/dev/null 2>"$work/time.txt" || { tail -20 "$work/time.txt" >&2; exit 1; }
  awk -F': ' -v mb="$total_mb" '/Elapsed \(wall clock\)/ { n = split($2, t, ":"); w = 0; for (i = 1; i <= n; i++) w = w * 60 + t[i] }
    /User time/ { u = $2 } /System time/ { s = $2 } /Maximum resident set size/ { r = $2 / 1024 }
    END { printf "index %d: wall %.2f s (%.0f MB/s)  cpu %.2f s (user %.2f)  peak RSS %.1f MB\n", '"$i"', w, mb / w, u + s, u, r }' \
    "$work/time.txt"
  rm -f "$work/index.sqlite"
  /usr/bin/time -v "$tlparse" "$work/logs" --all-ranks-html -o "$work/out" --overwrite --no-browser \
    >/dev/null 2>"$work/time.txt" || { tail -20 "$work/time.txt" >&2; exit 1; }
  wall=$(awk -F': ' '/Elapsed \(wall clock\)/ { n = split($2, t, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + t[i]; print s }' "$work/time.txt")
  rss=$(awk -F': ' '/Maximum resident set size/ { printf "%.1f", $2 / 1024 }' "$work/time.txt")
  cpu=$(awk -F': ' '/User time/ { u = $2 } /System time/ { s = $2 } END { printf "%.2f", u + s }' "$work/time.txt")
  awk -v i="$i" -v w="$wall" -v r="$rss" -v c="$cpu" 'BEGIN {
    printf "run %d: wall %.2f s (cpu %.2f s)  peak RSS %s MB  ->  %.1fx faster, %.1fx less memory than 9.1 s / 224 MB\n",
           i, w, c, r, 9.1 / w, 224 / r }'
  # The floor set by the bytes alone: copying the report just written (same files, same sizes)
  # with cp -r, in the same minute, on the same disk.
  rm -rf "$work/copy"
  /usr/bin/time -f '%e %U %S' cp -r "$work/out" "$work/copy" 2>"$work/cp.txt"
  read -r cp_wall cp_user cp_sys <"$work/cp.txt"
  awk -v w="$cp_wall" -v u="$cp_user" -v s="$cp_sys" -v mb="$(du -sm "$work/out" | cut -f1)" \
      -v n="$(find "$work/out" -type f | wc -l)" 'BEGIN {
    printf "       cp -r of that report (%d MB, %d files): wall %.2f s (cpu %.2f s)\n", mb, n, w, u + s }'
  rm -rf "$work/copy"
done
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg) (other builds may be running on this machine)"
