#!/usr/bin/env bash
# Issue 31's CPU comparison: our generated code (bench_inductor) beside PyTorch's torch.compile on
# the CPU (Inductor's C++/OpenMP code generation, scripts/bench_inductor_torch_compile.py), on
# 1, 4 and 16 threads, in one run, alternating ours and PyTorch's at each thread count. Meant for
# a machine with many cores and PyTorch 2 (the GPU machine: 16 cores, PyTorch 2.11); bench_inductor
# can be a copy built elsewhere, with its libraries beside it (LD_LIBRARY_PATH).
#   scripts/bench-inductor-peer.sh [path/to/bench_inductor] [THREADS ...]   (default 1 4 16)
#   PEER_PRELOAD=/path/libjemalloc.so.2   run both sides over that allocator (LD_PRELOAD), as
#   PyTorch's CPU tuning guide advises: glibc maps every allocation of 32 MB or more afresh, so
#   each call of a function with a 64 MB result page-faults it in, on one thread, whatever the
#   threads of the code that then fills it.
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
bench="${1:-$here/../build/release/bench/bench_inductor}"
shift || true
threads=("$@")
[ ${#threads[@]} -gt 0 ] || threads=(1 4 16)
[ -x "$bench" ] || { echo "bench-inductor-peer: no bench_inductor at $bench" >&2; exit 2; }
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)${PEER_PRELOAD:+, both sides over $PEER_PRELOAD}"
groups="pointwise transcendental softmax layer_norm matmul mlp train_step"
for t in "${threads[@]}"; do
  echo "== $t threads: bench_inductor" >&2
  LD_PRELOAD="${PEER_PRELOAD:-}" TORCHSCOPE_NUM_THREADS=$t OMP_NUM_THREADS=$t "$bench" $groups >"$work/ours.$t" 2>&1 ||
    echo "bench-inductor-peer: bench_inductor failed at $t threads; its rows read n/a" >&2
  echo "== $t threads: PyTorch torch.compile" >&2
  env -u TORCH_TRACE LD_PRELOAD="${PEER_PRELOAD:-}" OMP_NUM_THREADS=$t python3 "$here/bench_inductor_torch_compile.py" "$t" \
    >"$work/theirs.$t" 2>"$work/theirs_err.$t" ||
    { echo "bench-inductor-peer: PyTorch failed at $t threads; its rows read n/a" >&2; tail -5 "$work/theirs_err.$t" >&2; }
done
python3 - "$work" "${threads[@]}" <<'PY'
import sys
work, threads = sys.argv[1], sys.argv[2:]
def read(path):
    v = {}
    try:
        for line in open(path):
            name, _, rest = line.partition(":")
            try:
                v[name.strip()] = float(rest.split()[0])
            except (ValueError, IndexError):
                pass
    except OSError:
        pass
    return v
rows = [("pointwise chain, 2 x 16M floats (ms)", "pointwise_chain_compiled", False),
        ("transcendental chain, 16M floats (ms)", "transcendental_chain_compiled", False),
        ("softmax 4096 x 4096 (ms)", "softmax_compiled", False),
        ("layer_norm 8192 x 1024 (ms)", "layer_norm_compiled", False),
        ("matmul 1024^3 (GFLOP/s)", "matmul_compiled", True),
        ("MLP forward, batch 32 (us)", "mlp_forward_compiled", False),
        ("training step, batch 64 (ms)", "train_step_compiled", False)]
print("%-40s %8s %12s %12s %10s" % ("figure", "threads", "ours", "Inductor", "speed"))
for name, key, higher in rows:
    base = None
    for t in threads:
        o, p = read(f"{work}/ours.{t}").get(key), read(f"{work}/theirs.{t}").get(key + "_inductor")
        ratio = "n/a" if not o or not p else "%.2fx" % ((o / p) if higher else (p / o))
        print("%-40s %8s %12s %12s %10s" % (name if t == threads[0] else "", t,
              "%.3f" % o if o else "n/a", "%.3f" % p if p else "n/a", ratio))
    o1, on = read(f"{work}/ours.{threads[0]}").get(key), read(f"{work}/ours.{threads[-1]}").get(key)
    if o1 and on and len(threads) > 1:
        s = (on / o1) if higher else (o1 / on)
        print("%-40s %8s ours %s -> %s threads: %.1fx" % ("", "", threads[0], threads[-1], s))
PY
