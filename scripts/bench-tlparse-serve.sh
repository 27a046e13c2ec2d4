#!/usr/bin/env bash
# Benchmarks `tlparse LOG --serve` on a large log made by scale-trace from the w08_transformer
# PyTorch trace (issue 14: the first page of a 1 GB log's report served <= 1 s after its index
# exists): the time from the index appearing in OUT to the first page (index.html) answered,
# then a per-compile page and compile_directory.json.
# usage: scripts/bench-tlparse-serve.sh [BUILD_DIR] [MB] [RUNS]   (defaults: build/release 1000 2)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${1:-$root/build/release}"
mb="${2:-1000}"
runs="${3:-2}"
tlparse="$build/tlparse/tlparse"
shared="${TORCHSCOPE_SHARED_DIR:-$root/../shared}"
[ -x "$tlparse" ] || { echo "build tlparse first: cmake --build $build --target tlparse" >&2; exit 1; }
[ -d "$shared/corpus" ] || { echo "$shared is absent: the benchmark needs the shared corpus" >&2; exit 1; }
command -v curl >/dev/null || { echo "the benchmark needs curl" >&2; exit 1; }

work="$(mktemp -d "${TMPDIR:-/tmp}/bench-tlparse-serve.XXXXXX")"
server=""
trap '[ -n "$server" ] && kill "$server" 2>/dev/null; rm -rf "$work"' EXIT
"$shared/bin/scale-trace" "$shared"/corpus/pytorch-2.11/w08_transformer/*.log "$work/logs" --mb "$mb" >/dev/null 2>&1
log="$(ls "$work"/logs/*.log)"
echo "log: $(du -m "$log" | cut -f1) MB (scale-trace of w08_transformer)"
port=$((18000 + RANDOM % 1000))
now() { date +%s.%N; }
for i in $(seq 1 "$runs"); do
  rm -rf "$work/out"
  start=$(now)
  "$tlparse" "$log" -o "$work/out" --serve --port "$port" >"$work/serve.txt" 2>&1 &
  server=$!
  until [ -e "$work/out/index.sqlite" ]; do sleep 0.01; done
  indexed=$(now)
  until code=$(curl -s -o "$work/index.html" -w '%{http_code}' "http://127.0.0.1:$port/") && [ "$code" = 200 ]; do
    sleep 0.01
  done
  first=$(now)
  page="$(grep -o 'href="[^"]*compilation_metrics_[0-9]*.html' "$work/index.html" | head -1 | cut -c7- || true)"
  t_page=$(curl -s -o /dev/null -w '%{time_total}' "http://127.0.0.1:$port/$page")
  t_dir=$(curl -s -o /dev/null -w '%{time_total}' "http://127.0.0.1:$port/compile_directory.json")
  kill "$server"; wait "$server" 2>/dev/null || true; server=""
  awk -v s="$start" -v x="$indexed" -v f="$first" -v p="$t_page" -v d="$t_dir" -v i="$i" 'BEGIN {
    printf "run %d: index written after %.2f s; first page %.3f s after the index exists; then a metrics page %.3f s, compile_directory.json %.3f s\n",
           i, x - s, f - x, p, d }'
  port=$((port + 1))
done
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg) (other builds may be running on this machine)"
