#!/bin/bash
# Prints the GPU code generator's figures (issue 13) beside PyTorch 2.11's torch.compile on the
# same ops and sizes, measured in one run on the GPU machine:
#   scripts/bench-cuda-codegen.sh [path/to/bench_cuda_codegen] [--quick]
# Runs bench_cuda_codegen and scripts/bench_cuda_codegen_torch.py, then prints one table:
# each figure, ours, PyTorch's, and the ratio (PyTorch's time over ours: above 1 is faster).
set -u
here="$(cd "$(dirname "$0")" && pwd)"
bench="${1:-build/release/tests/compiler/bench_cuda_codegen}"
quick="${2:-}"
if [ ! -x "$bench" ]; then
  echo "bench-cuda-codegen.sh: no benchmark at $bench (build the bench_cuda_codegen target)" >&2
  exit 2
fi
ours="$(mktemp)"
theirs="$(mktemp)"
trap 'rm -f "$ours" "$theirs"' EXIT
echo "== bench_cuda_codegen"
"$bench" $quick | tee "$ours"
echo "== PyTorch torch.compile"
env -u TORCH_TRACE PYTHONUNBUFFERED=1 python3 "$here/bench_cuda_codegen_torch.py" $quick | tee "$theirs"
echo "== side by side"
python3 - "$ours" "$theirs" <<'EOF'
import sys

def read(path):
    out = {}
    for line in open(path):
        p = line.split()
        if len(p) == 3 and p[0] == "RESULT":
            out[p[1]] = float(p[2])
    return out

ours, theirs = read(sys.argv[1]), read(sys.argv[2])
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
print(f"{'figure':44} {'ours':>10} {'PyTorch':>10} {'speed ratio':>12}")
for name, key, timed in rows:
    o = ours.get(key)
    t = theirs.get("torch_" + key.replace("_tuned", ""))
    ratio = f"{t / o:.2f}x" if timed and o and t else ""
    fmt = lambda v: f"{v:10.1f}" if v is not None else f"{'-':>10}"
    print(f"{name:44} {fmt(o)} {fmt(t)} {ratio:>12}")
if ours.get("twenty_plain_us") and ours.get("twenty_graph_us"):
    print(f"reduce-overhead cuts our per-call host time {ours['twenty_plain_us'] / ours['twenty_graph_us']:.1f}x"
          f" ({int(ours.get('twenty_kernels_launches', 0))} kernels per call)")
if theirs.get("torch_twenty_plain_us") and theirs.get("torch_twenty_graph_us"):
    print(f"PyTorch's reduce-overhead cuts its per-call host time "
          f"{theirs['torch_twenty_plain_us'] / theirs['torch_twenty_graph_us']:.1f}x")
EOF
