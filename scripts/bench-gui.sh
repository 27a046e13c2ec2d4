#!/usr/bin/env bash
# Benchmarks tlparse-gui at the issue's scale, offscreen:
#   1. the first screen (compile tree, first compile's overview, its first artifact) when
#      opening the index of a ~1 GB log made by scale-trace from the w08_transformer trace,
#      then the compile-time chart: its first paint (goal <= 1 s from opening), zoom and pan;
#   2. full-text search over an index whose distinct payloads total >= 200 MB: the one-time
#      build of the search table, then the time to the first page of hits per query.
# A log made by repeating one trace holds one copy's worth of distinct payloads (the index
# stores each payload once), so (2) uses scripts/bench-gui-unique-payloads.py, which changes
# every payload of every copy and recomputes its MD5.
# usage: scripts/bench-gui.sh [BUILD_DIR] [--big-log LOG] [--runs N]
#   BUILD_DIR   a build with -DTORCHSCOPE_BUILD_GUI=ON (default: build/release); needs the
#               targets tlparse and bench_gui
#   --big-log   reuse an existing ~1 GB log instead of writing one (saves 1 GB of temp space)
# Temporary files (about 1.9 GB without --big-log) go under $TMPDIR and are deleted at exit.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="$root/build/release"
big_log=""
runs=3
while [ $# -gt 0 ]; do
  case "$1" in
    --big-log) big_log="$2"; shift 2 ;;
    --runs) runs="$2"; shift 2 ;;
    *) build="$1"; shift ;;
  esac
done
tlparse="$build/tlparse/tlparse"
bench="$build/bench/bench_gui"
shared="${TORCHSCOPE_SHARED_DIR:-$root/../shared}"
[ -x "$tlparse" ] && [ -x "$bench" ] || {
  echo "build first: ninja -C $build tlparse bench_gui (configured with -DTORCHSCOPE_BUILD_GUI=ON)" >&2
  exit 1
}
[ -d "$shared/corpus" ] || { echo "$shared is absent: the benchmark needs the shared corpus" >&2; exit 1; }
src="$(ls "$shared"/corpus/pytorch-2.11/w08_transformer/*.log | head -1)"

work="$(mktemp -d "${TMPDIR:-/tmp}/bench-gui.XXXXXX")"
trap 'rm -rf "$work"' EXIT
echo "machine: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"

if [ -z "$big_log" ]; then
  "$shared/bin/scale-trace" "$src" "$work/big" --mb 1000 >/dev/null 2>&1
  big_log="$(ls "$work"/big/*.log)"
fi
echo "1 GB log: $big_log ($(du -m "$big_log" | cut -f1) MB)"
start=$(date +%s.%N)
"$tlparse" index "$big_log" -o "$work/big.sqlite" >/dev/null 2>&1
echo "  tlparse index: $(echo "$(date +%s.%N) - $start" | bc) s"
rm -rf "$work/big"

python3 "$root/scripts/bench-gui-unique-payloads.py" "$src" "$work/unique.log" --payload-mb 220
start=$(date +%s.%N)
"$tlparse" index "$work/unique.log" -o "$work/unique.sqlite" >/dev/null 2>&1
echo "  tlparse index: $(echo "$(date +%s.%N) - $start" | bc) s"
rm -f "$work/unique.log"

QT_QPA_PLATFORM=offscreen "$bench" --runs "$runs" "$work/big.sqlite" "$work/unique.sqlite" 2>&1 |
  grep -v -e 'propagateSizeHints' -e 'XDG_RUNTIME_DIR'
