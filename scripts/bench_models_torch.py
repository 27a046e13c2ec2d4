#!/usr/bin/python3
"""PyTorch's side of scripts/bench-models.sh: the models of our training samples, built in
PyTorch with the same sizes and the same step (forward, loss, backward, AdamW), timed eagerly
on this machine's threads. Prints `<model>_step_ms: <median>` lines.

Usage: /usr/bin/python3 scripts/bench_models_torch.py [--steps N] [--threads T]
"""
import argparse
import math
import time

import torch
import torch.nn.functional as F

# train_llama's sizes (samples/compiler/train_llama.cpp).
VOCAB, DIM, HEADS, HIDDEN, LAYERS, CONTEXT, BATCH = 256, 128, 4, 344, 2, 64, 8
HEAD_DIM = DIM // HEADS


def rms_norm(x, weight, eps=1e-5):
    return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps) * weight


class Block(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.attn_norm = torch.nn.Parameter(torch.ones(DIM))
        self.mlp_norm = torch.nn.Parameter(torch.ones(DIM))
        self.wqkv = torch.nn.Linear(DIM, 3 * DIM, bias=False)
        self.wo = torch.nn.Linear(DIM, DIM, bias=False)
        self.w1 = torch.nn.Linear(DIM, HIDDEN, bias=False)
        self.w3 = torch.nn.Linear(DIM, HIDDEN, bias=False)
        self.w2 = torch.nn.Linear(HIDDEN, DIM, bias=False)
        half = HEAD_DIM // 2
        pos = torch.arange(CONTEXT, dtype=torch.float64)[:, None]
        freq = 10000.0 ** (-2.0 * torch.arange(half, dtype=torch.float64) / HEAD_DIM)
        self.register_buffer("cos", torch.cos(pos * freq).float())
        self.register_buffer("sin", torch.sin(pos * freq).float())
        self.register_buffer("mask", torch.triu(torch.full((CONTEXT, CONTEXT), -1e9), 1))

    def rotary(self, x):
        x1, x2 = x[..., : HEAD_DIM // 2], x[..., HEAD_DIM // 2 :]
        return torch.cat([x1 * self.cos - x2 * self.sin, x1 * self.sin + x2 * self.cos], -1)

    def forward(self, x):
        b, t, _ = x.shape
        qkv = self.wqkv(rms_norm(x, self.attn_norm))
        q, k, v = (qkv[..., i * DIM : (i + 1) * DIM].reshape(b, t, HEADS, HEAD_DIM).transpose(1, 2)
                   for i in range(3))
        q, k = self.rotary(q), self.rotary(k)
        scores = q @ k.transpose(-1, -2) / math.sqrt(HEAD_DIM) + self.mask
        y = (scores.softmax(-1) @ v).transpose(1, 2).reshape(b, t, DIM)
        h = x + self.wo(y)
        n = rms_norm(h, self.mlp_norm)
        return h + self.w2(F.silu(self.w1(n)) * self.w3(n))


class Llama(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.tok = torch.nn.Embedding(VOCAB, DIM)
        self.layers = torch.nn.ModuleList(Block() for _ in range(LAYERS))
        self.norm = torch.nn.Parameter(torch.ones(DIM))
        self.head = torch.nn.Linear(DIM, VOCAB, bias=False)

    def forward(self, idx):
        x = self.tok(idx) * 0.1
        for layer in self.layers:
            x = layer(x)
        return self.head(rms_norm(x, self.norm))


def batch(step):
    idx, nxt = [], []
    for r in range(BATCH):
        token = (step * 13 + r * 7) % VOCAB
        for _ in range(CONTEXT):
            idx.append(token)
            token = (5 * token + 3) % VOCAB
            nxt.append(token)
    return torch.tensor(idx).reshape(BATCH, CONTEXT), torch.tensor(nxt)


def time_steps(model, steps):
    opt = torch.optim.AdamW(model.parameters(), lr=3e-3, weight_decay=0.01)
    times = []
    for s in range(steps + 1):
        idx, targets = batch(s)
        t0 = time.perf_counter()
        loss = F.cross_entropy(model(idx).reshape(-1, VOCAB), targets)
        loss.backward()
        opt.step()
        opt.zero_grad()
        if s > 0:  # the first step warms the allocator and the kernels' caches
            times.append((time.perf_counter() - t0) * 1e3)
    times.sort()
    return times[len(times) // 2]


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--steps", type=int, default=10)
    p.add_argument("--threads", type=int, default=0, help="torch.set_num_threads (0: leave)")
    a = p.parse_args()
    if a.threads > 0:
        torch.set_num_threads(a.threads)
    torch.manual_seed(0)
    print("torch %s, %d threads" % (torch.__version__, torch.get_num_threads()))
    print("llama_step_ms: %.3f" % time_steps(Llama(), a.steps))


if __name__ == "__main__":
    main()
