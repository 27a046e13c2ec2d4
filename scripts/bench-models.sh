#!/usr/bin/env bash
# Issue 26's model figures on the CPU: each training sample's step compiled by us, against
# PyTorch 1.13 eager (Debian's python3-torch, scripts/bench_models_torch.py) on the same model
# and the same threads, in one run; and the cold compile time of the step (its first call,
# forward and backward, with an empty compile cache).
#   scripts/bench-models.sh [STEPS]            (default 10 timed steps, medians printed)
#   BUILD=build/release                        where the samples were built
# PyTorch's matmuls go through the system BLAS (libblas.so.3: OpenBLAS when installed, as the
# README's set-up does; the reference BLAS is many times slower); the line "peer BLAS" says which.
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
build="${BUILD:-$here/../build/release}"
steps="${1:-10}"
threads="${THREADS:-$(nproc)}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs); $threads threads each side"
echo "peer BLAS: $(readlink -f /usr/lib/x86_64-linux-gnu/libblas.so.3 2>/dev/null || echo unknown)"
status=0
for model in llama; do
  exe="$build/samples/sample_train_$model"
  if [ ! -x "$exe" ]; then
    echo "bench-models: no $exe (build the samples first)" >&2
    status=1
    continue
  fi
  env -u TORCH_TRACE TORCHINDUCTOR_CACHE_DIR="$work/cache-$model" TORCHSCOPE_NUM_THREADS="$threads" \
    "$exe" --bench --steps "$steps" >"$work/ours.$model" 2>&1 ||
    { echo "bench-models: $exe --bench failed" >&2; cat "$work/ours.$model" >&2; status=1; }
done
env -u TORCH_TRACE OMP_NUM_THREADS="$threads" /usr/bin/python3 "$here/bench_models_torch.py" \
  --steps "$steps" --threads "$threads" >"$work/theirs" 2>"$work/theirs_err" ||
  { echo "bench-models: PyTorch failed; its rows read n/a" >&2; tail -5 "$work/theirs_err" >&2; }
python3 - "$work" <<'PY'
import sys
work = sys.argv[1]
def read(path):
    v = {}
    try:
        for line in open(path):
            k, _, rest = line.partition(":")
            try:
                v[k.strip()] = float(rest.split()[0])
            except (ValueError, IndexError):
                pass
    except OSError:
        pass
    return v
theirs = read(work + "/theirs")
print("%-28s %12s %12s %12s %9s" % ("training step (median)", "ours", "our eager", "PyTorch", "ratio"))
for model in ["llama"]:
    ours = read("%s/ours.%s" % (work, model))
    c, e, t = ours.get("compiled_step_ms"), ours.get("eager_step_ms"), theirs.get(model + "_step_ms")
    fmt = lambda x: "%.2f ms" % x if x else "n/a"
    ratio = "%.2fx" % (t / c) if c and t else "n/a"
    print("%-28s %12s %12s %12s %9s" % (model, fmt(c), fmt(e), fmt(t), ratio))
    if ours.get("cold_compile_ms"):
        print("%-28s %12s %12s %12s %9s" % (model + " cold compile", "%.0f ms" % ours["cold_compile_ms"], "", "", ""))
print("ratio: PyTorch 1.13 eager step time / our compiled step time (goal >= 1.5x); cold compile goal <= 2 s")
PY
exit $status
