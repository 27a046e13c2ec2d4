#!/usr/bin/env bash
# Benchmarks `tlparse DIR --all-ranks-html` on 32 ranks of 8 MB each, made by scale-trace from a
# rank log of the w12_ddp_cpu PyTorch trace (issue 14's setting): wall time, CPU time and peak RSS
# of each run, against tlparse 0.4.3's figures on this machine kind as the issue gives them (9.1 s,
# 224 MB; tlparse 0.4.3 itself is not installed here, so the yardstick is that figure, not a
# side-by-side run).
#
# The ingest alone and two ways of writing the report are timed, each run in turn:
#   index      `tlparse index` of the rank logs into a new index (the ingest of the full run);
#   fresh      into a folder that does not exist (the previous output is removed and synced to
#              disk before the clock starts, so each run starts with no dirty pages behind it);
#   overwrite  --overwrite over the report of the run before, whose removal is then part of the
#              command (tlparse removes only the files the old index lists, then moves the new
#              report in).
# With BASELINE=/path/to/other/tlparse, each run of this build is preceded by a run of that
# binary in the same mode, so the two are compared in the same minutes on a shared machine.
#
# usage: [BASELINE=TLPARSE] [MODES="index fresh overwrite"] \
#          scripts/bench-tlparse-ranks.sh [BUILD_DIR] [RUNS] [MB_PER_RANK] [RANKS]
#   defaults: build/release, 3 runs, 8 MB, 32 ranks. Needs ../shared (or $TORCHSCOPE_SHARED_DIR).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${1:-$root/build/release}"
runs="${2:-3}"
mb_per_rank="${3:-8}"
ranks="${4:-32}"
modes="${MODES:-index fresh overwrite}"
tlparse="$build/tlparse/tlparse"
shared="${TORCHSCOPE_SHARED_DIR:-$root/../shared}"
[ -x "$tlparse" ] || { echo "build tlparse first: cmake --build $build --target tlparse" >&2; exit 1; }
[ -d "$shared/corpus" ] || { echo "$shared is absent: the benchmark needs the shared corpus" >&2; exit 1; }
if [ -n "${BASELINE:-}" ] && [ ! -x "$BASELINE" ]; then
  echo "BASELINE=$BASELINE is not an executable" >&2
  exit 1
fi

work="$(mktemp -d "${TMPDIR:-/tmp}/bench-tlparse-ranks.XXXXXX")"
trap 'rm -rf "$work"' EXIT

src="$(ls "$shared"/corpus/pytorch-2.11/w12_ddp_cpu/dedicated_log_torch_trace_rank_0_*.log | head -1)"
"$shared/bin/scale-trace" "$src" "$work/logs" --mb "$mb_per_rank" --ranks "$ranks" >/dev/null 2>&1
total_mb=$(du -sm "$work/logs" | cut -f1)
echo "input: $ranks rank logs of ~$mb_per_rank MB from $(basename "$src") ($total_mb MB in all)"
echo "yardstick: tlparse 0.4.3 --all-ranks-html on this machine kind: 9.1 s, 224 MB peak RSS (issue 14)"

# one_run LABEL BINARY MODE RUN: runs BINARY once in MODE and prints its figures.
one_run() {
  local label="$1" bin="$2" mode="$3" i="$4" out="$work/out-$1"
  local -a extra=()
  if [ "$mode" = index ]; then
    rm -f "$work/index.sqlite"
    /usr/bin/time -v "$bin" index "$work"/logs/*.log -o "$work/index.sqlite" \
      >/dev/null 2>"$work/time.txt" || { tail -20 "$work/time.txt" >&2; exit 1; }
    awk -F': ' -v l="$label" -v i="$i" -v mb="$total_mb" '/Elapsed \(wall clock\)/ { n = split($2, t, ":"); w = 0; for (k = 1; k <= n; k++) w = w * 60 + t[k] }
      /User time/ { u = $2 } /System time/ { s = $2 } /Maximum resident set size/ { r = $2 / 1024 }
      END { printf "%-9s %-9s run %d: wall %6.2f s  cpu %.2f (%.2f user) s  peak RSS %6.1f MB  (%.0f MB/s of logs)\n", l, "index", i, w, u + s, u, r, mb / w }' \
      "$work/time.txt"
    rm -f "$work/index.sqlite"
    return
  fi
  if [ "$mode" = fresh ]; then
    rm -rf "$out"
    sync
  else
    [ -d "$out" ] || "$bin" "$work/logs" --all-ranks-html -o "$out" --no-browser >/dev/null 2>&1
    extra=(--overwrite)
  fi
  /usr/bin/time -v "$bin" "$work/logs" --all-ranks-html -o "$out" "${extra[@]}" --no-browser \
    >/dev/null 2>"$work/time.txt" || { tail -20 "$work/time.txt" >&2; exit 1; }
  local wall rss cpu
  wall=$(awk -F': ' '/Elapsed \(wall clock\)/ { n = split($2, t, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + t[i]; print s }' "$work/time.txt")
  rss=$(awk -F': ' '/Maximum resident set size/ { printf "%.1f", $2 / 1024 }' "$work/time.txt")
  cpu=$(awk -F': ' '/User time/ { u = $2 } /System time/ { s = $2 } END { printf "%.2f (%.2f user)", u + s, u }' "$work/time.txt")
  awk -v l="$label" -v m="$mode" -v i="$i" -v w="$wall" -v r="$rss" -v c="$cpu" 'BEGIN {
    printf "%-9s %-9s run %d: wall %6.2f s  cpu %s s  peak RSS %6s MB  ->  %4.1fx faster, %4.1fx less memory than 9.1 s / 224 MB\n",
           l, m, i, w, c, r, 9.1 / w, 224 / r }'
}

for i in $(seq 1 "$runs"); do
  for mode in $modes; do
    if [ -n "${BASELINE:-}" ]; then
      one_run baseline "$BASELINE" "$mode" "$i"
    fi
    one_run this "$tlparse" "$mode" "$i"
  done
done

# The floor set by the bytes alone: copying the last report (same files, same sizes) with cp -r,
# on the same disk, after a sync.
last="$(ls -d "$work"/out-this)"
sync
/usr/bin/time -f '%e %U %S' cp -r "$last" "$work/copy" 2>"$work/cp.txt"
read -r cp_wall cp_user cp_sys <"$work/cp.txt"
awk -v w="$cp_wall" -v u="$cp_user" -v s="$cp_sys" -v mb="$(du -sm "$last" | cut -f1)" \
    -v n="$(find "$last" -type f | wc -l)" 'BEGIN {
  printf "floor: cp -r of the report (%d MB, %d files): wall %.2f s (cpu %.2f s)\n", mb, n, w, u + s }'
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg) (other builds may be running on this machine)"
