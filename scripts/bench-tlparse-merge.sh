#!/usr/bin/env bash
# Benchmarks the multi-rank report of many ranks two ways, on the same logs, in one run
# (docs/TLPARSE-MULTI-RANK.md, "Indexing where the logs are"):
#   one process   `tlparse DIR --all-ranks-html`: one ingest of every log, then every rank's
#                 report written, then the landing page;
#   per rank      `tlparse index` of each log on its own (as each node of a job would; here
#                 `xargs -P JOBS` on this machine), `tlparse merge` of those indexes, then
#                 `tlparse render MERGED --all-ranks-html --serve` until the landing page is
#                 served (no rank's report is written; one rank's page is then fetched too).
# Prints each stage's wall time and peak RSS (/usr/bin/time -v, per process; for the per-rank
# indexes the largest of them), the two totals and their ratio. Goal (issue 29): the per-rank way
# in at most a quarter of the one-process time, at most 200 MB peak RSS per process.
#
# The logs are made by scale-trace from a w12_ddp_cpu rank log. 1,024 ranks of 2 MB (the issue's
# setting) write 2 GB of logs and a one-process report several times that; on the 2-core
# development machine use e.g. 256 ranks of 1 MB.
#
# With ONE_PROCESS=0 the one-process run is left out (for the per-rank figures alone at a scale
# whose one-process report would not fit on the disk).
#
# usage: [ONE_PROCESS=0] scripts/bench-tlparse-merge.sh [BUILD_DIR] [RANKS] [MB_PER_RANK] [JOBS]
#   defaults: build/release, 256 ranks, 1 MB, 2 jobs. Needs ../shared (or $TORCHSCOPE_SHARED_DIR)
#   and curl.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${1:-$root/build/release}"
ranks="${2:-256}"
mb_per_rank="${3:-1}"
jobs="${4:-2}"
tlparse="$build/tlparse/tlparse"
shared="${TORCHSCOPE_SHARED_DIR:-$root/../shared}"
[ -x "$tlparse" ] || { echo "build tlparse first: cmake --build $build --target tlparse" >&2; exit 1; }
[ -d "$shared/corpus" ] || { echo "$shared is absent: the benchmark needs the shared corpus" >&2; exit 1; }
command -v curl >/dev/null || { echo "the benchmark needs curl" >&2; exit 1; }

work="$(mktemp -d "${TMPDIR:-/tmp}/bench-tlparse-merge.XXXXXX")"
server=""
cleanup() {
  [ -n "$server" ] && kill "$server" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

src="$(ls "$shared"/corpus/pytorch-2.11/w12_ddp_cpu/dedicated_log_torch_trace_rank_0_*.log | head -1)"
"$shared/bin/scale-trace" "$src" "$work/logs" --mb "$mb_per_rank" --ranks "$ranks" >/dev/null 2>&1
total_mb=$(du -sm "$work/logs" | cut -f1)
echo "input: $ranks rank logs of ~$mb_per_rank MB from $(basename "$src") ($total_mb MB in all)"

now() { date +%s.%N; }
# wall and peak RSS (MB) of a /usr/bin/time -v report
wall_of() { awk -F': ' '/Elapsed \(wall clock\)/ { n = split($2, t, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + t[i]; print s }' "$1"; }
rss_of() { awk -F': ' '/Maximum resident set size/ { printf "%.1f", $2 / 1024 }' "$1"; }
# user + system CPU seconds of one or more reports
cpu_of() { cat "$@" | awk -F': ' '/User time/ { c += $2 } /System time/ { c += $2 } END { printf "%.2f", c }'; }

# 1. One process: every rank's report written.
one_wall=0 one_cpu=0
if [ "${ONE_PROCESS:-1}" != 0 ]; then
  sync
  /usr/bin/time -v "$tlparse" "$work/logs" --all-ranks-html -o "$work/one" --no-browser \
    >/dev/null 2>"$work/one.time" || { tail -20 "$work/one.time" >&2; exit 1; }
  one_wall=$(wall_of "$work/one.time")
  one_rss=$(rss_of "$work/one.time")
  one_mb=$(du -sm "$work/one" | cut -f1)
  rm -rf "$work/one"
  sync
  one_cpu=$(cpu_of "$work/one.time")
  printf "one process   --all-ranks-html            wall %7.2f s  cpu %7.2f s  peak RSS %6s MB  (report %s MB)\n" \
    "$one_wall" "$one_cpu" "$one_rss" "$one_mb"
fi

# 2a. Per rank: one `tlparse index` per log, JOBS at a time, each timed.
mkdir -p "$work/parts" "$work/times"
t0=$(now)
ls "$work"/logs/*.log | xargs -P "$jobs" -I{} sh -c \
  'n=$(basename "$1" .log); /usr/bin/time -v "$2" index "$1" -o "$3/parts/$n.sqlite" >/dev/null 2>"$3/times/$n.time"' \
  _ {} "$tlparse" "$work"
t1=$(now)
index_wall=$(echo "$t1 - $t0" | bc)
index_rss=$(for f in "$work"/times/*.time; do rss_of "$f"; echo; done | sort -n | tail -1)
index_cpu=$(cpu_of "$work"/times/*.time)
index_one=$(for f in "$work"/times/*.time; do wall_of "$f"; done | sort -n | tail -1)
printf "per rank      tlparse index x %-5s (-P %s) wall %7.2f s  cpu %7.2f s  peak RSS %6s MB  (largest process; slowest one alone %.2f s)\n" \
  "$ranks" "$jobs" "$index_wall" "$index_cpu" "$index_rss" "$index_one"

# 2b. The merge.
/usr/bin/time -v "$tlparse" merge "$work"/parts/*.sqlite -o "$work/merged.sqlite" \
  >/dev/null 2>"$work/merge.time" || { tail -20 "$work/merge.time" >&2; exit 1; }
merge_wall=$(wall_of "$work/merge.time")
merge_rss=$(rss_of "$work/merge.time")
merge_cpu=$(cpu_of "$work/merge.time")
printf "              tlparse merge               wall %7.2f s  cpu %7.2f s  peak RSS %6s MB  (index %s MB)\n" \
  "$merge_wall" "$merge_cpu" "$merge_rss" "$(du -sm "$work/merged.sqlite" | cut -f1)"

# 2c. Served: from the server's start to the landing page received, then one rank's page.
port=$((18000 + $$ % 1000))
t0=$(now)
/usr/bin/time -v "$tlparse" render "$work/merged.sqlite" --all-ranks-html --serve --port "$port" \
  --raw-log "$work/logs" >/dev/null 2>"$work/serve.time" &
server=$!
until curl -sf -o "$work/landing.html" "http://127.0.0.1:$port/"; do
  sleep 0.05
  kill -0 "$server" 2>/dev/null || { tail -20 "$work/serve.time" >&2; exit 1; }
done
t1=$(now)
landing_wall=$(echo "$t1 - $t0" | bc)
last_rank=$((ranks - 1))
t0=$(now)
curl -sf -o /dev/null "http://127.0.0.1:$port/rank_$last_rank/index.html"
t1=$(now)
rank_wall=$(echo "$t1 - $t0" | bc)
# $server is /usr/bin/time; stopping the tlparse it runs lets time print its report.
kill "$(pgrep -P "$server")"
wait "$server" 2>/dev/null || true
server=""
serve_rss=$(rss_of "$work/serve.time")
serve_cpu=$(cpu_of "$work/serve.time")
printf "              render --all-ranks-html --serve: landing served after %.2f s, then rank_%s/index.html in %.2f s  cpu %.2f s  peak RSS %6s MB\n" \
  "$landing_wall" "$last_rank" "$rank_wall" "$serve_cpu" "$serve_rss"

total=$(echo "$index_wall + $merge_wall + $landing_wall" | bc)
cluster=$(echo "$index_one + $merge_wall + $landing_wall" | bc)
peak=$(printf "%s\n%s\n%s\n" "$index_rss" "$merge_rss" "$serve_rss" | sort -n | tail -1)
[ "$one_wall" = 0 ] && { printf "per rank, on this machine: %.2f s; with the indexes made on the nodes at once: %.2f s; peak RSS per process %s MB\n" "$total" "$cluster" "$peak"; exit 0; }
awk -v t="$total" -v c="$cluster" -v o="$one_wall" -v oc="$one_cpu" -v pc="$(echo "$index_cpu + $merge_cpu + $serve_cpu" | bc)" -v p="$peak" 'BEGIN {
  printf "per rank, on this machine (index + merge + landing served): %.2f s against %.2f s: %.3f of the one-process time (goal <= 0.25)\n", t, o, t / o
  printf "per rank, indexes made on the nodes at once (slowest index + merge + landing served): %.2f s: %.3f of the one-process time\n", c, c / o
  printf "cpu, all processes: %.2f s against %.2f s: %.3f; peak RSS per process %s MB (goal <= 200)\n", pc, oc, pc / oc, p }'
