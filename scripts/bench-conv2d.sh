#!/usr/bin/env bash
# The eager conv2d against PyTorch 1.13 eager on one shape (3x3, padding 1, batch 32, 64 -> 64
# channels, 56x56), both on 2 threads, forward and forward + backward, best of 3 each; prints
# both figures and PyTorch's time over ours (>= 1.0: ours is at least as fast).
#   scripts/bench-conv2d.sh [build dir, default build/release]
set -euo pipefail
build="${1:-build/release}"
ours=$("$build/bench/bench_tensor_kernels" conv2d)
echo "$ours"
theirs=$(/usr/bin/python3 - <<'PY'
import time, torch
torch.set_num_threads(2)
torch.manual_seed(0)
x = torch.randn(32, 64, 56, 56)
w = torch.randn(64, 64, 3, 3) * 0.05
b = torch.randn(64)
def best(fn, reps=3):
    t = 1e30
    for _ in range(reps):
        s = time.perf_counter(); fn(); t = min(t, time.perf_counter() - s)
    return t
fwd = best(lambda: torch.nn.functional.conv2d(x, w, b, 1, 1))
xg, wg, bg = (t.clone().requires_grad_() for t in (x, w, b))
both = best(lambda: torch.nn.functional.conv2d(xg, wg, bg, 1, 1).sum().backward())
print("%.3f %.3f" % (fwd * 1e3, both * 1e3))
PY
)
read -r torch_fwd torch_both <<<"$theirs"
our_fwd=$(echo "$ours" | grep ' forward ' | awk '{print $(NF-3)}')
our_both=$(echo "$ours" | grep 'forward+backward' | awk '{print $(NF-3)}')
echo "PyTorch 1.13 eager, 2 threads: forward $torch_fwd ms, forward+backward $torch_both ms"
awk -v a="$torch_fwd" -v b="$our_fwd" -v c="$torch_both" -v d="$our_both" \
  'BEGIN { printf "ratio (PyTorch time / ours): forward %.2fx, forward+backward %.2fx\n", a / b, c / d }'
