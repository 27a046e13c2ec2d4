#!/usr/bin/env python3
"""PyTorch's torch.compile on the ops and sizes of bench_cuda_codegen (the GPU code
generator's benchmark), timed the same way: CUDA events around back-to-back calls, the median
of 7 groups, after two warm-up calls. Prints "RESULT torch_<key> <value>" lines that
scripts/bench-cuda-codegen.sh sets beside ours. Needs a GPU and PyTorch with Triton."""
import sys
import time

import torch

torch.backends.cuda.matmul.allow_tf32 = False  # fp32 GEMMs, as ours (cuBLAS, no TF32)
torch.backends.cudnn.allow_tf32 = False


def gpu_us(fn, per_group):
    fn()
    fn()
    torch.cuda.synchronize()
    groups = []
    for _ in range(7):
        start = torch.cuda.Event(enable_timing=True)
        stop = torch.cuda.Event(enable_timing=True)
        start.record()
        for _ in range(per_group):
            fn()
        stop.record()
        stop.synchronize()
        groups.append(start.elapsed_time(stop) * 1000.0 / per_group)
    return sorted(groups)[3]


def call_us(fn, per_group):
    """(host us per call on an idle device, wall us per call back to back), medians of 9."""
    for _ in range(3):
        fn()
    torch.cuda.synchronize()
    host, wall = [], []
    for _ in range(9):
        t0 = time.perf_counter()
        for _ in range(per_group):
            fn()
        t1 = time.perf_counter()
        torch.cuda.synchronize()
        t2 = time.perf_counter()
        host.append((t1 - t0) * 1e6 / per_group)
        wall.append((t2 - t0) * 1e6 / per_group)
    return sorted(host)[4], sorted(wall)[4]


def wave(sizes, seed):
    n = 1
    for s in sizes:
        n *= s
    i = torch.arange(n, dtype=torch.float64, device="cuda")
    return torch.sin(0.37 * i + seed).to(torch.float32).reshape(sizes)


def result(key, value):
    print(f"RESULT torch_{key} {value:.3f}", flush=True)


def main():
    quick = "--quick" in sys.argv
    reps = 3 if quick else 20
    print(f"torch {torch.__version__} on {torch.cuda.get_device_name(0)}", flush=True)

    n = 1 << 28  # 1 GiB of floats
    src = torch.empty(n, device="cuda")
    dst = torch.empty(n, device="cuda")
    us = gpu_us(lambda: dst.copy_(src), reps)
    copy_gbps = 2.0 * n * 4 / (us * 1e3)
    result("copy_gbps", copy_gbps)
    del src, dst

    if "--only=sweep" in sys.argv:
        sweep(reps, copy_gbps)
        return

    def report(key, nbytes, us):
        result(f"{key}_us", us)
        result(f"{key}_pct_of_copy", 100.0 * nbytes / (us * 1e3) / copy_gbps)

    m = 16 << 20
    a, b = wave([m], 1), wave([m], 2)
    f = torch.compile(chain8)
    report("pointwise", 3.0 * m * 4, gpu_us(lambda: f(a, b), reps))

    x = wave([4096, 4096], 3)
    f = torch.compile(lambda t: torch.softmax(t, -1))
    report("softmax", 2.0 * 4096 * 4096 * 4, gpu_us(lambda: f(x), reps))

    x, w, bias = wave([8192, 1024], 4), wave([1024], 5), wave([1024], 6)
    f = torch.compile(lambda t, wt, bs: torch.nn.functional.layer_norm(t, [1024], wt, bs))
    report("layer_norm", 2.0 * 8192 * 1024 * 4, gpu_us(lambda: f(x, w, bias), reps))

    x = wave([4096, 1024], 7)
    w1, b1 = wave([4096, 1024], 8) * 0.03, wave([4096], 9)
    w2, b2 = wave([1024, 4096], 10) * 0.03, wave([1024], 11)

    def mlp(t, l1, c1, l2, c2):
        h = torch.nn.functional.gelu(torch.addmm(c1, t, l1.t()))
        h = torch.nn.functional.layer_norm(h, [4096])
        return torch.softmax(torch.addmm(c2, h, l2.t()), -1)

    f = torch.compile(mlp)
    result("mlp_forward_us", gpu_us(lambda: f(x, w1, b1, w2, b2), 2 if quick else 10))

    # The MLP forward's parts, each compiled alone.
    h = wave([4096, 4096], 13)
    logits = wave([4096, 1024], 14)
    parts = [
        ("mm_4096x1024x4096", torch.compile(lambda t, l: torch.mm(t, l.t())), (x, w1)),
        ("linear_gelu",
         torch.compile(lambda t, l, c: torch.nn.functional.gelu(torch.addmm(c, t, l.t()))),
         (x, w1, b1)),
        ("layer_norm_4096x4096",
         torch.compile(lambda t: torch.nn.functional.layer_norm(t, [4096])), (h,)),
        ("linear2", torch.compile(lambda t, l, c: torch.addmm(c, t, l.t())), (h, w2, b2)),
        ("softmax_4096x1024", torch.compile(lambda t: torch.softmax(t, -1)), (logits,)),
        ("column_sum_4096x4096", torch.compile(lambda t: torch.sum(t, 0)), (h,)),
    ]
    for key, fn, args in parts:
        result(f"mlp_part_{key}_us", gpu_us(lambda: fn(*args), 2 if quick else 10))

    # The training step: the compiled forward to a cross-entropy loss, and backward() through
    # AOTAutograd's compiled backward graph; gradients set to None before each step.
    params = [p.clone().requires_grad_(True) for p in (w1, b1, w2, b2)]
    target = (torch.arange(4096, device="cuda") * 37 + 11) % 1024

    def loss_of(t, l1, c1, l2, c2, tgt):
        h = torch.nn.functional.gelu(torch.addmm(c1, t, l1.t()))
        h = torch.nn.functional.layer_norm(h, [4096])
        return torch.nn.functional.cross_entropy(torch.addmm(c2, h, l2.t()), tgt)

    step = torch.compile(loss_of)

    def train_step():
        for p in params:
            p.grad = None
        step(x, *params, target).backward()

    result("mlp_train_step_us", gpu_us(train_step, 2 if quick else 10))

    def twenty(t):
        y = t
        for _ in range(5):
            y = torch.softmax(y, 0)
            y = torch.softmax(y, 1)
        return y

    x = wave([32, 32], 12)
    plain = torch.compile(twenty)
    graphs = torch.compile(twenty, mode="reduce-overhead")
    host, wall = call_us(lambda: plain(x), 16)
    result("twenty_plain_us", host)
    result("twenty_plain_wall_us", wall)
    host, wall = call_us(lambda: graphs(x), 16)
    result("twenty_graph_us", host)
    result("twenty_graph_wall_us", wall)

    sweep(reps, copy_gbps)


def chain12(x, r, c):
    """The sweep's dozen-op chain, as bench_cuda_codegen's chain12 spells it."""
    t = x * r
    t = t + c
    t = t - x * 0.5
    t = torch.relu(t)
    t = torch.abs(t - r)
    t = torch.where(t > 0.5, t, c)
    t = t * x
    t = torch.sigmoid(t)
    return t + r * c


def chain8(a, b):
    """The 8-op pointwise chain (tests/compiler/pointwise_chain.h spells ours)."""
    x = a * b
    x = x + a
    x = x - b
    x = torch.relu(x)
    x = torch.abs(x)
    x = torch.where(x > 0.5, x, b)
    return x * a


def sweep(reps, copy_gbps):
    """The shape sweep (issue 31): the rows of bench_cuda_codegen's sweep group, same keys, shapes
    and byte counts; each compiled statically (one graph per shape, as ours)."""
    torch._dynamo.config.cache_size_limit = 256
    torch._dynamo.config.recompile_limit = 256

    def compiled(fn):
        return torch.compile(fn, dynamic=False)

    def row(key, nbytes, fn, *args):
        try:
            us = gpu_us(lambda: fn(*args), reps)
        except Exception as e:  # a failed row leaves the others
            print(f"{key} n/a: {e}", flush=True)
            return
        result(f"{key}_us", us)
        result(f"{key}_pct_of_copy", 100.0 * nbytes / (us * 1e3) / copy_gbps)

    def chain_row(key, xs, rs, cs):
        x, r, c = wave(xs, 1), wave(rs, 2), wave(cs, 3)
        row(key, 2.0 * x.numel() * 4, compiled(chain12), x, r, c)

    chain_row("sweep_bcast1d_odd", [33554467], [1], [1])
    chain_row("sweep_bcast2d_odd", [8191, 4097], [4097], [8191, 1])
    chain_row("sweep_bcast2d_prime", [4093, 8191], [8191], [4093, 1])
    chain_row("sweep_bcast2d_w7", [4793491, 7], [7], [4793491, 1])
    chain_row("sweep_bcast3d_odd", [127, 511, 517], [517], [127, 1, 1])
    a, b = wave([5793, 5793], 4), wave([5793, 5793], 5)
    row("sweep_transposed", 3.0 * a.numel() * 4, compiled(lambda p, q: chain8(p.t(), q)), a, b)
    del a, b
    a = wave([8192, 4099], 6)
    row("sweep_sliced", 2.0 * 8192 * 4097 * 4,
        compiled(lambda p: torch.relu(p[:, 1:4098] * 2.0 + 1.0)), a)
    a = wave([8192, 4097], 7)
    row("sweep_sum_inner", a.numel() * 4.0, compiled(lambda p: torch.sum(p, 1)), a)
    a = wave([8192, 4097], 8)
    row("sweep_sum_outer", a.numel() * 4.0, compiled(lambda p: torch.sum(p, 0)), a)
    a = wave([33554467], 9)
    row("sweep_sum_all", a.numel() * 4.0, compiled(lambda p: torch.sum(p)), a)
    a, r = wave([8191, 4097], 10).half(), wave([4097], 11)
    row("sweep_mixed_f16_f32", a.numel() * 6.0, compiled(lambda p, q: torch.relu(p * q + q)), a, r)
    a = wave([8192, 4097], 12).bfloat16()
    row("sweep_softmax_bf16_w4097", 2.0 * a.numel() * 2,
        compiled(lambda p: torch.softmax(p, -1)), a)
    del a, r
    for w in (7, 129, 1000, 4097, 65537):
        n = (32 << 20) // w
        a = wave([n, w], 13)
        row(f"sweep_softmax_w{w}", 2.0 * a.numel() * 4, compiled(lambda p: torch.softmax(p, -1)),
            a)
        a, g, b = wave([n, w], 14), wave([w], 15), wave([w], 16)
        row(f"sweep_layer_norm_w{w}", 2.0 * a.numel() * 4,
            compiled(lambda p, q, s, w=w: torch.nn.functional.layer_norm(p, [w], q, s)), a, g, b)


if __name__ == "__main__":
    main()
