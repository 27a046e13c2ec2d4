#!/usr/bin/env bash
# Prints every figure of Inductor's performance goals in one run, with the yardsticks measured
# in the same run: our eager kernels and a STREAM-style add (bench_inductor), and PyTorch's eager
# CPU kernels (Debian's python3-torch, PyTorch 1.13, run with /usr/bin/python3 and 2 threads;
# installed when missing). Ratios are compiled vs each yardstick; goals from issue 12. The FMA
# peak is measured with the widest vector FMA the host has (AVX-512, AVX2+FMA or SSE2; force a
# narrower one with TORCHSCOPE_BENCH_PEAK_ISA=avx2 or sse2); a yardstick that fails reads n/a.
# usage: scripts/bench-inductor.sh [BUILD_DIR]        (default: build/release)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${1:-$root/build/release}"
bench="$build/bench/bench_inductor"
[ -x "$bench" ] || { echo "build the benchmark first: cmake --build $build --target bench_inductor" >&2; exit 1; }

if ! /usr/bin/python3 -c 'import torch' 2>/dev/null; then
  echo "bench-inductor: installing python3-torch (PyTorch's eager kernels, the yardstick)" >&2
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq python3-torch >/dev/null
fi

work="$(mktemp -d "${TMPDIR:-/tmp}/bench-inductor.XXXXXX")"
trap 'rm -rf "$work"' EXIT
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "running bench_inductor..." >&2
"$bench" | tee "$work/ours.txt" >&2 || echo "bench-inductor: bench_inductor failed; its rows read n/a" >&2

echo "running PyTorch $(/usr/bin/python3 -c 'import torch; print(torch.__version__)') eager..." >&2
# A yardstick that fails (no PyTorch, an import error) leaves its figures out; the rest still print.
/usr/bin/python3 - >"$work/torch.txt" <<'PY' || echo "bench-inductor: the PyTorch yardstick failed; its rows read n/a" >&2
import time, torch
torch.set_num_threads(2)
torch.manual_seed(0)

def median_ms(fn, rounds=7):
    fn()
    t = []
    for _ in range(rounds):
        s = time.perf_counter(); fn(); t.append((time.perf_counter() - s) * 1e3)
    t.sort()
    return t[len(t) // 2]

n = 1 << 24
a = torch.randn(n); b = torch.randn(n)
def chain():
    x = a * b; x = x + a; x = x - b; x = torch.relu(x); x = torch.abs(x)
    x = torch.where(x > 0.5, x, b); return x * a
def transcendental():
    x = torch.sin(a); x = torch.exp(x * 0.5); x = torch.tanh(x + b)
    x = torch.sqrt(torch.abs(x) + 1.0); return x * a
print("pointwise_chain_torch: %.3f ms" % median_ms(chain))
print("transcendental_chain_torch: %.3f ms" % median_ms(transcendental))
x = torch.randn(4096, 4096)
print("softmax_torch: %.3f ms" % median_ms(lambda: torch.softmax(x, -1)))
y = torch.randn(8192, 1024); w = torch.randn(1024); bb = torch.randn(1024)
print("layer_norm_torch: %.3f ms" % median_ms(lambda: torch.nn.functional.layer_norm(y, (1024,), w, bb)))
m = torch.randn(1024, 1024); m2 = torch.randn(1024, 1024)
print("matmul_torch: %.3f GFLOP/s" % (2 * 1024 ** 3 / (median_ms(lambda: torch.mm(m, m2)) * 1e6)))
model = torch.nn.Sequential(torch.nn.Linear(64, 128), torch.nn.GELU(), torch.nn.LayerNorm(128),
                            torch.nn.Linear(128, 10))
xin = torch.randn(32, 64)
with torch.no_grad():
    def many():
        for _ in range(200):
            torch.softmax(model(xin), -1)
    print("mlp_forward_torch: %.3f us" % (median_ms(many) * 1000 / 200))
PY
cat "$work/torch.txt" >&2

/usr/bin/python3 - "$work/ours.txt" "$work/torch.txt" <<'PY'
import sys
v = {}
for path in sys.argv[1:]:
    for line in open(path):
        name, _, rest = line.partition(":")
        if rest.strip():
            try:
                v[name.strip()] = float(rest.split()[0])
            except ValueError:  # a word, such as the instruction set of the FMA peak
                v[name.strip()] = rest.strip()
nan = float("nan")
def get(k): return v.get(k, nan)
def div(a, b):
    # A missing or zero yardstick (a failed run, a peak the host could not measure) reads n/a
    # instead of stopping every other figure.
    return a / b if b == b and a == a and b != 0 else nan
rows = []
def row(name, value, goal, met):
    rows.append((name, value, goal, "yes" if met else ("n/a" if "nan" in value else "NO")))
stream = get("stream_add_bandwidth")
row("STREAM-style add (2 threads)", "%.1f GB/s" % stream, "yardstick", True)
c, e, t = get("pointwise_chain_compiled"), get("pointwise_chain_eager"), get("pointwise_chain_torch")
row("pointwise chain, 2 x 16M floats", "%.1f ms" % c, "", True)
row("  vs PyTorch eager (%.0f ms)" % t, "%.1fx" % (div(t, c)), ">= 5x", div(t, c) >= 5)
row("  vs our eager (%.0f ms)" % e, "%.1fx" % (div(e, c)), "", True)
bw = get("pointwise_chain_bandwidth")
row("  bandwidth, of the STREAM add", "%.0f%%" % (100 * div(bw, stream)), ">= 50%", div(bw, stream) >= 0.5)
c, e, t = get("transcendental_chain_compiled"), get("transcendental_chain_eager"), get("transcendental_chain_torch")
row("transcendental chain, 16M floats", "%.1f ms" % c, "", True)
row("  vs our eager (%.0f ms)" % e, "%.1fx" % (div(e, c)), ">= 3x", div(e, c) >= 3)
row("  vs PyTorch eager (%.0f ms)" % t, "%.1fx" % (div(t, c)), ">= 2x", div(t, c) >= 2)
for name, label in (("softmax", "softmax rows of 4096 x 4096"), ("layer_norm", "layer_norm 8192 x 1024")):
    c, e, t = get(name + "_compiled"), get(name + "_eager"), get(name + "_torch")
    row(label, "%.1f ms" % c, "", True)
    row("  vs PyTorch eager (%.1f ms)" % t, "%.2fx" % (div(t, c)), ">= 1.0x", div(t, c) >= 1.0)
    row("  vs our eager (%.0f ms)" % e, "%.1fx" % (div(e, c)), "", True)
mm = get("matmul_compiled")
peak = get("fma_peak")
row("matmul 1024^3 f32 (our GEMM)", "%.0f GFLOP/s" % mm, ">= 50%% of peak (%.0f)" % (peak / 2), mm >= peak / 2)
row("  of the FMA peak (%.0f GFLOP/s, %s)" % (peak, v.get("fma_peak_isa", "?")), "%.0f%%" % (100 * div(mm, peak)), "", True)
row("  our eager kernel", "%.1f GFLOP/s" % get("matmul_eager"), "", True)
row("  PyTorch eager", "%.1f GFLOP/s" % get("matmul_torch"), "", True)
if "matmul_openblas" in v:
    row("  OpenBLAS (libopenblas-dev)", "%.1f GFLOP/s" % get("matmul_openblas"), "", True)
c, e, t = get("mlp_forward_compiled"), get("mlp_forward_eager"), get("mlp_forward_torch")
row("MLP forward (samples/compiler/mlp.cpp)", "%.1f us" % c, "", True)
row("  vs our eager (%.0f us)" % e, "%.1fx" % (div(e, c)), ">= 1.5x", div(e, c) >= 1.5)
row("  PyTorch eager, for reference", "%.1f us" % t, "", True)
cold, hot = get("compile_200_ops_cold"), get("compile_200_ops_from_cache")
row("compile of a 200-op graph, cold", "%.0f ms" % cold, "<= 300 ms", cold <= 300)
row("  from the on-disk cache", "%.1f ms" % hot, "<= 10 ms", hot <= 10)
print()
print("%-42s %16s  %-24s %s" % ("figure", "value", "goal", "met"))
for r in rows:
    print("%-42s %16s  %-24s %s" % (r[0], r[1], r[2], r[3] if r[2] else ""))
PY
