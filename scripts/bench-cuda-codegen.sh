#!/bin/bash
# Prints the GPU code generator's figures (issue 13) beside PyTorch 2.11's torch.compile on the
# same ops and sizes, measured in one run on the GPU machine:
#   scripts/bench-cuda-codegen.sh [path/to/bench_cuda_codegen] [--quick] [--rounds=N]
#                                 [--only=sweep]
# Runs bench_cuda_codegen and scripts/bench_cuda_codegen_torch.py in turn, N rounds (3 unless
# told): ours, PyTorch's, ours, PyTorch's, ... so that both sides see the same machine states.
# Each process times every figure with CUDA events over back-to-back calls (the median of its
# groups). The table gives, per figure, the median over the rounds of each side and of the ratio
# of each round (PyTorch's time over ours: above 1 is faster), with their ranges.
set -u
here="$(cd "$(dirname "$0")" && pwd)"
bench="build/release/tests/compiler/bench_cuda_codegen"
quick=""
only=""
rounds=3
for arg in "$@"; do
  case "$arg" in
  --quick) quick="--quick" ;;
  --only=sweep) only="--only=sweep" ;;
  --rounds=*) rounds="${arg#--rounds=}" ;;
  -h | --help)
    sed -n '2,9p' "$0" | sed 's/^# \{0,1\}//'
    exit 0
    ;;
  *) bench="$arg" ;;
  esac
done
if [ ! -x "$bench" ]; then
  echo "bench-cuda-codegen.sh: no benchmark at $bench (build the bench_cuda_codegen target)" >&2
  exit 2
fi
case "$rounds" in
'' | *[!0-9]* | 0)
  echo "bench-cuda-codegen.sh: --rounds wants a positive number, not '$rounds'" >&2
  exit 2
  ;;
esac
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
status=0
for r in $(seq 1 "$rounds"); do
  echo "== round $r of $rounds: bench_cuda_codegen"
  "$bench" $quick $only | tee "$work/ours.$r" || status=1
  echo "== round $r of $rounds: PyTorch torch.compile"
  env -u TORCH_TRACE PYTHONUNBUFFERED=1 python3 "$here/bench_cuda_codegen_torch.py" $quick $only |
    tee "$work/theirs.$r" || status=1
  # Later rounds trace nothing: the first round's trace holds every graph.
  unset TORCH_TRACE
done
echo "== side by side ($rounds rounds: median [min-max])"
python3 - "$work" "$rounds" <<'EOF' || status=1
import statistics
import sys

def read(path):
    out = {}
    for line in open(path):
        p = line.split()
        if len(p) == 3 and p[0] == "RESULT":
            out[p[1]] = float(p[2])
    return out

work, rounds = sys.argv[1], int(sys.argv[2])
ours = [read(f"{work}/ours.{r}") for r in range(1, rounds + 1)]
theirs = [read(f"{work}/theirs.{r}") for r in range(1, rounds + 1)]
rows = [
    ("device-to-device copy (GB/s)", "copy_gbps", False),
    ("pointwise chain, 8 ops, 2 x 16M (us)", "pointwise_us", True),
    ("  % of the copy's bandwidth", "pointwise_pct_of_copy", False),
    ("  ours with max-autotune (us)", "pointwise_tuned_us", True),
    ("  % of the copy's bandwidth", "pointwise_tuned_pct_of_copy", False),
    ("softmax 4096 x 4096 (us)", "softmax_us", True),
    ("  % of the copy's bandwidth", "softmax_pct_of_copy", False),
    ("  ours with max-autotune (us)", "softmax_tuned_us", True),
    ("  % of the copy's bandwidth", "softmax_tuned_pct_of_copy", False),
    ("layer_norm 8192 x 1024 (us)", "layer_norm_us", True),
    ("  % of the copy's bandwidth", "layer_norm_pct_of_copy", False),
    ("  ours with max-autotune (us)", "layer_norm_tuned_us", True),
    ("  % of the copy's bandwidth", "layer_norm_tuned_pct_of_copy", False),
    ("MLP forward, batch 4096 (us)", "mlp_forward_us", True),
    ("  ours with max-autotune (us)", "mlp_forward_tuned_us", True),
    ("  part: mm 4096 x 1024 x 4096 (us)", "mlp_part_mm_4096x1024x4096_us", True),
    ("  part: addmm + GELU (us)", "mlp_part_linear_gelu_us", True),
    ("  part: layer_norm 4096 x 4096 (us)", "mlp_part_layer_norm_4096x4096_us", True),
    ("  part: addmm 4096 x 4096 x 1024 (us)", "mlp_part_linear2_us", True),
    ("  part: softmax 4096 x 1024 (us)", "mlp_part_softmax_4096x1024_us", True),
    ("  part: sum over dim 0, 4096 x 4096 (us)", "mlp_part_column_sum_4096x4096_us", True),
    ("MLP training step, batch 4096 (us)", "mlp_train_step_us", True),
    ("20-kernel graph, plain: host us/call", "twenty_plain_us", True),
    ("20-kernel graph, reduce-overhead: host us/call", "twenty_graph_us", True),
    ("20-kernel graph, plain: wall us/call", "twenty_plain_wall_us", True),
    ("20-kernel graph, reduce-overhead: wall us/call", "twenty_graph_wall_us", True),
]

# The shape sweep's rows (issue 31) come from the keys themselves, in the order printed.
sweep_keys = []
for side in ours + theirs:
    for k in side:
        k = k[len("torch_"):] if k.startswith("torch_") else k
        if k.startswith("sweep_") and k.endswith("_us") and k not in sweep_keys:
            sweep_keys.append(k)
for k in sweep_keys:
    rows.append((k[len("sweep_"):-len("_us")] + " (us)", k, True))
    rows.append(("  % of the copy's bandwidth", k[:-len("_us")] + "_pct_of_copy", False))


def summary(values, fmt):
    if not values:
        return "-"
    med = fmt(statistics.median(values))
    return med if len(values) == 1 else f"{med} [{fmt(min(values))}-{fmt(max(values))}]"

num = lambda v: f"{v:.1f}"
ratio_fmt = lambda v: f"{v:.2f}x"
print(f"{'figure':44} {'ours':>22} {'PyTorch':>22} {'speed ratio':>20}")
for name, key, timed in rows:
    o = [r[key] for r in ours if key in r]
    t = [r["torch_" + key.replace("_tuned", "")] for r in theirs
         if "torch_" + key.replace("_tuned", "") in r]
    if not o and not t:
        continue  # a figure neither side ran (--only)
    ratios = []
    if timed:
        for ro, rt in zip(ours, theirs):
            a, b = ro.get(key), rt.get("torch_" + key.replace("_tuned", ""))
            if a and b:
                ratios.append(b / a)
    print(f"{name:44} {summary(o, num):>22} {summary(t, num):>22} "
          f"{summary(ratios, ratio_fmt) if ratios else '':>20}")

def gain(side, prefix):
    g = [r[prefix + "twenty_plain_us"] / r[prefix + "twenty_graph_us"] for r in side
         if r.get(prefix + "twenty_plain_us") and r.get(prefix + "twenty_graph_us")]
    return summary(g, lambda v: f"{v:.1f}x") if g else ""

if gain(ours, ""):
    launches = int(ours[0].get("twenty_kernels_launches", 0))
    print(f"reduce-overhead cuts our per-call host time {gain(ours, '')} ({launches} kernels per call)")
if gain(theirs, "torch_"):
    print(f"PyTorch's reduce-overhead cuts its per-call host time {gain(theirs, 'torch_')}")
EOF
exit "$status"
