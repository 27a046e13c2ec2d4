#!/usr/bin/env python3
"""PyTorch's torch.compile on the CPU (Inductor's C++/OpenMP code) on the rows of bench_inductor,
timed the same way (the median of 7 timed calls after a warm-up), on the threads given:
    bench_inductor_torch_compile.py THREADS
Prints "name: value unit" lines with the same names as bench_inductor plus a _inductor suffix,
for scripts/bench-inductor-peer.sh. Needs PyTorch 2 (the GPU machine's python3 has 2.11)."""
import sys
import time

import torch


def median_ms(fn, rounds=7):
    fn()
    fn()
    t = []
    for _ in range(rounds):
        s = time.perf_counter()
        fn()
        t.append((time.perf_counter() - s) * 1e3)
    t.sort()
    return t[len(t) // 2]


def wave(sizes, seed):
    n = 1
    for s in sizes:
        n *= s
    i = torch.arange(n, dtype=torch.float64)
    return torch.sin(0.37 * i + seed).to(torch.float32).reshape(sizes)


def figure(name, value, unit):
    print(f"{name}_inductor: {value:.3f} {unit}", flush=True)


def main():
    threads = int(sys.argv[1])
    torch.set_num_threads(threads)
    torch._dynamo.config.cache_size_limit = 64
    print(f"torch {torch.__version__}, {torch.get_num_threads()} threads", file=sys.stderr)
    n = 1 << 24
    a, b = wave([n], 1), wave([n], 2)

    def chain(a, b):
        x = a * b
        x = x + a
        x = x - b
        x = torch.relu(x)
        x = torch.abs(x)
        x = torch.where(x > 0.5, x, b)
        return x * a

    f = torch.compile(chain)
    figure("pointwise_chain_compiled", median_ms(lambda: f(a, b)), "ms")

    def transcendental(a, b):
        x = torch.sin(a)
        x = torch.exp(x * 0.5)
        x = torch.tanh(x + b)
        x = torch.sqrt(torch.abs(x) + 1.0)
        return x * a

    a, b = wave([n], 3), wave([n], 4)
    f = torch.compile(transcendental)
    figure("transcendental_chain_compiled", median_ms(lambda: f(a, b)), "ms")
    x = wave([4096, 4096], 5)
    f = torch.compile(lambda t: torch.softmax(t, -1))
    figure("softmax_compiled", median_ms(lambda: f(x)), "ms")
    x, w, bb = wave([8192, 1024], 6), wave([1024], 7), wave([1024], 8)
    f = torch.compile(lambda t: torch.nn.functional.layer_norm(t, (1024,), w, bb))
    figure("layer_norm_compiled", median_ms(lambda: f(x)), "ms")
    m, m2 = wave([1024, 1024], 9), wave([1024, 1024], 10)
    f = torch.compile(lambda p, q: torch.matmul(p, q))
    figure("matmul_compiled", 2 * 1024**3 / (median_ms(lambda: f(m, m2), 15) * 1e6), "GFLOP/s")

    model = torch.nn.Sequential(torch.nn.Linear(64, 128), torch.nn.GELU(),
                                torch.nn.LayerNorm(128), torch.nn.Linear(128, 10))
    xin = wave([32, 64], 11)
    fwd = torch.compile(lambda t: torch.softmax(model(t), -1))
    with torch.no_grad():
        def many():
            for _ in range(200):
                fwd(xin)
        figure("mlp_forward_compiled", median_ms(many) * 1000 / 200, "us")

    net = torch.nn.Sequential(torch.nn.Linear(256, 512), torch.nn.GELU(),
                              torch.nn.LayerNorm(512), torch.nn.Linear(512, 10))
    cnet = torch.compile(net)
    xs = wave([64, 256], 13)
    ys = torch.full((64,), 3, dtype=torch.int64)

    def step():
        for p in net.parameters():
            p.grad = None
        torch.nn.functional.cross_entropy(cnet(xs), ys).backward()

    figure("train_step_compiled", median_ms(step), "ms")


if __name__ == "__main__":
    main()
