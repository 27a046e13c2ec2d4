#!/usr/bin/env bash
# Peak RSS and time of tlparse on the hostile corpus's big shapes (docs/SECURITY.md, "Memory"):
# the report's budget is 150 MB whatever the log's shape. For each shape: the ingest alone
# (`tlparse index`), the render alone (`tlparse render`) and the direct run.
# usage: scripts/bench-hostile-memory.sh [SHAPE ...]
#   shapes: small-events (1M small artifacts, one file each), compile-ids (100k compiles),
#           deep-stack (one 12 MB line, a 100k-frame stack), str-max ({"str": [..., 4194303]})
#   BUILD_DIR (environment, default build/release) holds tlparse and bench/hostile_log_gen.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${BUILD_DIR:-$root/build/release}"
tlparse="$build/tlparse/tlparse"
gen="$build/bench/hostile_log_gen"
[ -x "$tlparse" ] && [ -x "$gen" ] || {
  echo "build first: cmake --build $build -j2 --target tlparse hostile_log_gen" >&2; exit 1; }
shapes=("$@")
[ ${#shapes[@]} -gt 0 ] || shapes=(small-events compile-ids deep-stack str-max)

work="$(mktemp -d "${TMPDIR:-/tmp}/bench-hostile.XXXXXX")"
trap 'rm -rf "$work"' EXIT

size_of() {  # the shape's N
  case "$1" in
    small-events) echo 1000000 ;; compile-ids) echo 100000 ;; deep-stack) echo 100000 ;; *) echo 1 ;;
  esac
}

measure() {  # label, command...
  local label="$1"; shift
  /usr/bin/time -f '%M %e' -o "$work/time.txt" "$@" >/dev/null 2>"$work/err.txt" || {
    echo "$label: FAILED" >&2; tail -5 "$work/err.txt" >&2; return 1; }
  read -r kb secs <"$work/time.txt"
  awk -v l="$label" -v kb="$kb" -v s="$secs" 'BEGIN {
    printf "  %-8s peak RSS %7.1f MB  %7.2f s%s\n", l, kb / 1024, s, (kb > 150 * 1024) ? "  OVER BUDGET" : "" }'
}

for shape in "${shapes[@]}"; do
  n="$(size_of "$shape")"
  rm -rf "$work/case"
  mkdir -p "$work/case"
  "$gen" "$shape" "$n" "$work/case/log.log"
  mb=$(awk -v b="$(stat -c %s "$work/case/log.log")" 'BEGIN { printf "%.1f", b / 1048576 }')
  echo "$shape (N=$n, log $mb MB):"
  measure index "$tlparse" index "$work/case/log.log" -o "$work/case/index.sqlite"
  measure render "$tlparse" render "$work/case/index.sqlite" -o "$work/case/rendered" \
    --raw-log "$work/case/log.log"
  measure direct "$tlparse" "$work/case/log.log" -o "$work/case/out"
  files=$(find "$work/case/out" -type f | wc -l)
  echo "  report: $files files, $(du -sm "$work/case/out" | cut -f1) MB on disk"
done
