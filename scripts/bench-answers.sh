#!/usr/bin/env bash
# Benchmarks the answers of issue 15: `tlparse diff` of two 200 MB logs (the w13 cache runs,
# scaled; both indexed at once, then compared), and `tlparse query` of every listed view's
# example (`tlparse query --list`) over the index of a 1 GB log (w08_transformer, scaled).
# Each figure is the best and the median of RUNS runs (default 5); the machine's load is printed.
# usage: scripts/bench-answers.sh [BUILD_DIR] [RUNS] [WORK_DIR]
#   WORK_DIR keeps the scaled logs and the 1 GB index between runs (default: a temporary folder).
#   Needs ../shared (or $TORCHSCOPE_SHARED_DIR).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${1:-$root/build/release}"
runs="${2:-5}"
tlparse="$build/tlparse/tlparse"
shared="${TORCHSCOPE_SHARED_DIR:-$root/../shared}"
[ -x "$tlparse" ] || { echo "build tlparse first: cmake --build $build --target tlparse" >&2; exit 1; }
[ -d "$shared/corpus" ] || { echo "$shared is absent: the benchmark needs the shared corpus" >&2; exit 1; }
if [ -n "${3:-}" ]; then
  work="$3"; mkdir -p "$work"
else
  work="$(mktemp -d "${TMPDIR:-/tmp}/bench-answers.XXXXXX")"
  trap 'rm -rf "$work"' EXIT
fi
corpus="$shared/corpus/pytorch-2.11"
[ -f "$work/run1/dedicated_log_torch_trace_scaled.log" ] ||
  "$shared/bin/scale-trace" "$corpus"/w13_cache_run1/*.log "$work/run1" --mb 200 >/dev/null
[ -f "$work/run2/dedicated_log_torch_trace_scaled.log" ] ||
  "$shared/bin/scale-trace" "$corpus"/w13_cache_run2/*.log "$work/run2" --mb 200 >/dev/null
[ -f "$work/big/dedicated_log_torch_trace_scaled.log" ] ||
  "$shared/bin/scale-trace" "$corpus"/w08_transformer/*.log "$work/big" --mb 1000 >/dev/null
[ -f "$work/big.sqlite" ] ||
  "$tlparse" index "$work/big/dedicated_log_torch_trace_scaled.log" -o "$work/big.sqlite" 2>/dev/null

# best and median wall time, and the median CPU time (user + system), of `runs` runs: on a
# loaded machine wall time is mostly waiting for a core, CPU time is the work itself.
timed() {
  local rows=()
  for _ in $(seq "$runs"); do
    rows+=("$(/usr/bin/time -f '%e %U %S' "$@" 2>&1 >/dev/null | tail -1)")
  done
  local wall cpu
  wall=$(printf '%s\n' "${rows[@]}" | awk '{ print $1 }' | sort -n)
  cpu=$(printf '%s\n' "${rows[@]}" | awk '{ print $2 + $3 }' | sort -n)
  printf 'wall best %.3f s  median %.3f s  cpu median %.3f s' "$(echo "$wall" | head -1)" \
    "$(echo "$wall" | sed -n "$(( (runs + 1) / 2 ))p")" "$(echo "$cpu" | sed -n "$(( (runs + 1) / 2 ))p")"
}

a="$work/run1/dedicated_log_torch_trace_scaled.log"
b="$work/run2/dedicated_log_torch_trace_scaled.log"
echo "($(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg); $runs runs each)"
echo "diff of two $(( $(stat -c %s "$a") >> 20 )) MB / $(( $(stat -c %s "$b") >> 20 )) MB logs: $(timed "$tlparse" diff "$a" "$b")  (goal <= 3 s)"
echo "  yardstick, tlparse index of the first log alone: $(timed "$tlparse" index "$a" -o "$work/yard.sqlite")"
echo "query over the index of a $(( $(stat -c %s "$work/big/dedicated_log_torch_trace_scaled.log") >> 20 )) MB log ($(( $(stat -c %s "$work/big.sqlite") >> 20 )) MB), each example of tlparse query --list (goal <= 200 ms each):"
"$tlparse" query --list | awk '/^  example: / { sub(/^  example: /, ""); print }' | while IFS= read -r sql; do
  printf '  %-100.100s %s\n' "$sql" "$(timed "$tlparse" query "$work/big.sqlite" "$sql")"
done
