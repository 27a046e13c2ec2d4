#!/usr/bin/python3
"""The PyTorch half of the differential test (docs/COMPILER.md, "Checked against PyTorch").

Replays each program description written by compiler_differential_programs in PyTorch twice,
in float64 (the answer) and in float32 (how close PyTorch itself gets), and checks our eager and
compiled results and gradients against them:

  an element passes when it equals PyTorch's float32 value (NaN matching NaN, infinities
  exactly), or when |ours - f64| <= 4 * |torch_f32 - f64| + rtol * (|f64| + max(m, 1)), where m
  is the largest finite |f64| of that tensor and rtol = 1e-5 * (1 + sqrt(R)), R the program's
  longest reduction or inner product. (Inputs lie in [-2, 2] and the loss's gradient seed is 1,
  so a difference far below 1 in a result that cancels to nearly 0 is rounding.)

A program our side refused (a UserError) passes only when PyTorch refuses it too.

  check_against_torch.py FILE_OR_DIR...   exit 0: every program agrees; 1: some did not
"""
import json
import math
import os
import sys

import torch
import torch.nn.functional as F


def run_op(op, a, pool):
    """The PyTorch reading of each op name (the C++ one is differential_programs.cpp's apply)."""
    t = [pool[x["ref"]] if isinstance(x, dict) and "ref" in x else x for x in a]
    t = [x["float"] if isinstance(x, dict) and "float" in x else x for x in t]
    unary = {
        "neg": torch.neg, "exp": torch.exp, "log": torch.log, "sin": torch.sin,
        "cos": torch.cos, "tanh": torch.tanh, "sigmoid": torch.sigmoid, "relu": torch.relu,
        "gelu": F.gelu, "sqrt": torch.sqrt, "rsqrt": torch.rsqrt, "abs": torch.abs,
        "erf": torch.erf, "silu": F.silu, "contiguous": lambda x: x.contiguous(),
    }
    if op in unary:
        return unary[op](t[0])
    if op == "gelu_tanh":
        return F.gelu(t[0], approximate="tanh")
    binary = {"add": torch.add, "sub": torch.sub, "mul": torch.mul, "div": torch.div,
              "pow": torch.pow, "maximum": torch.maximum, "gt": torch.gt}
    if op in binary:
        return binary[op](t[0], t[1])
    if op == "where":
        return torch.where(t[0], t[1], t[2])
    # pointwise, more
    more_unary = {
        "floor": torch.floor, "ceil": torch.ceil, "round": torch.round, "trunc": torch.trunc,
        "sign": torch.sign, "log1p": torch.log1p, "expm1": torch.expm1, "tan": torch.tan,
        "atan": torch.atan, "asin": torch.asin, "acos": torch.acos, "sinh": torch.sinh,
        "cosh": torch.cosh, "isnan": torch.isnan, "isinf": torch.isinf,
        "logical_not": torch.logical_not, "bitwise_not": torch.bitwise_not,
        "hardswish": F.hardswish, "nan_to_num": torch.nan_to_num,
    }
    if op in more_unary:
        return more_unary[op](t[0])
    more_binary = {
        "minimum": torch.minimum, "clamp_min": torch.clamp_min, "clamp_max": torch.clamp_max,
        "logical_and": torch.logical_and, "logical_or": torch.logical_or,
        "logical_xor": torch.logical_xor, "bitwise_and": torch.bitwise_and,
        "bitwise_or": torch.bitwise_or, "bitwise_xor": torch.bitwise_xor,
    }
    if op in more_binary:
        return more_binary[op](t[0], t[1])
    if op == "clamp":
        return torch.clamp(t[0], t[1], t[2])
    if op == "masked_fill":
        return t[0].masked_fill(t[1], t[2])
    if op == "leaky_relu":
        return F.leaky_relu(t[0], t[1])
    if op == "elu":
        return F.elu(t[0], t[1])
    if op == "softplus":
        return F.softplus(t[0], t[1], t[2])
    if op in ("sum", "mean", "amax", "amin"):
        x, dims, keepdim = t
        fn = getattr(torch, op)
        if not dims:
            r = fn(x)
            return r.reshape([1] * x.dim()) if keepdim else r
        return fn(x, dims, keepdim)
    if op == "softmax":
        return torch.softmax(t[0], t[1])
    if op == "log_softmax":
        return torch.log_softmax(t[0], t[1])
    if op == "matmul":
        return torch.matmul(t[0], t[1])
    if op == "bmm":
        return torch.bmm(t[0], t[1])
    if op == "layer_norm":
        return F.layer_norm(t[0], t[1], t[2], t[3], t[4])
    if op == "transpose":
        return t[0].transpose(t[1], t[2])
    if op == "permute":
        return t[0].permute(t[1])
    if op == "slice":
        x, dim, start, end, step = t
        index = [slice(None)] * x.dim()
        index[dim] = slice(start, end, step)
        return x[tuple(index)]
    if op == "unsqueeze":
        return t[0].unsqueeze(t[1])
    if op == "squeeze":
        return t[0].squeeze(t[1])
    if op == "reshape":
        return t[0].reshape(t[1])
    if op == "expand":
        return t[0].expand(t[1])
    if op == "cat":
        return torch.cat([t[0], t[1]], t[2])
    # indexing, more
    if op == "index_select":
        return torch.index_select(t[0], t[1], torch.tensor(t[2], dtype=torch.long))
    if op == "narrow":
        return t[0].narrow(t[1], t[2], t[3])
    if op == "tril":
        return torch.tril(t[0], t[1])
    if op == "triu":
        return torch.triu(t[0], t[1])
    if op == "repeat":
        return t[0].repeat(t[1])
    if op == "roll":
        return torch.roll(t[0], t[1], t[2])
    # issue 26 (empty dims reduce every dim, as ours do)
    if op in ("var", "logsumexp"):
        x, dims = t[0], t[1] or list(range(max(t[0].dim(), 1)))
        if op == "var":
            return torch.var(x, dims, correction=int(t[2]), keepdim=t[3])
        return torch.logsumexp(x, dims, t[2])
    if op in ("mse_loss", "mse_loss_sum", "mse_loss_none"):
        return F.mse_loss(t[0], t[1], reduction="mean" if op == "mse_loss" else op[9:])
    if op in ("bce_with_logits", "bce_with_logits_sum"):
        return F.binary_cross_entropy_with_logits(
            t[0], t[1], reduction="mean" if op == "bce_with_logits" else "sum")
    if op == "dropout":
        x, p, seed, offset = t
        keep = counter_uniform(seed, offset, x.numel()) < 1.0 - p
        scale = torch.where(keep, torch.tensor(1.0 / (1.0 - p) if p < 1 else 0.0, dtype=x.dtype),
                            torch.tensor(0.0, dtype=x.dtype))
        return x * scale.reshape(x.shape)
    # convolution, pooling, normalisation
    if op == "conv2d":
        return F.conv2d(t[0], t[1], t[2], t[3], t[4], t[5], t[6])
    if op == "max_pool2d":
        return F.max_pool2d(t[0], t[1], t[2], t[3], t[4], t[5])
    if op == "avg_pool2d":
        return F.avg_pool2d(t[0], t[1], t[2], t[3], t[4], t[5])
    if op == "adaptive_avg_pool2d":
        return F.adaptive_avg_pool2d(t[0], t[1])
    if op == "group_norm":
        return F.group_norm(t[0], t[1], t[2], t[3], t[4])
    raise ValueError("unknown op " + op)


MASK64 = (1 << 64) - 1


def splitmix(x):
    """SplitMix64's finaliser, as kernels/counter_rng.h writes it (an independent reading)."""
    x = (x + 0x9E3779B97F4A7C15) & MASK64
    x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
    x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & MASK64
    return x ^ (x >> 31)


def counter_uniform(seed, offset, count):
    """Our rand's draws for counters offset .. offset + count - 1, as float32 in [0, 1)."""
    key = splitmix(seed & MASK64)
    values = [(splitmix(key ^ (((offset + i) * 0xD1B54A32D192ED03) & MASK64)) >> 40) * 2.0**-24
              for i in range(count)]
    return torch.tensor(values, dtype=torch.float32)


def replay(prog, dtype):
    """(outputs, grads) of the program in PyTorch at `dtype`, or the error PyTorch raised."""
    leaves, inputs = [], []
    for spec in prog["inputs"]:
        sizes, perm = spec["sizes"], spec["perm"]
        base_sizes = list(sizes)
        for i, p in enumerate(perm):
            base_sizes[p] = sizes[i]
        base = torch.tensor(spec["values"], dtype=torch.float64).reshape(base_sizes)
        if spec["bool"]:
            base = base != 0
        else:
            base = base.to(dtype).requires_grad_(True)
        leaves.append(base)
        inputs.append(base.permute(perm) if perm else base)
    try:
        pool = []
        for step in prog["steps"]:
            if step["op"] == "input":
                pool.append(inputs[step["args"][0]])
            else:
                pool.append(run_op(step["op"], step["args"], pool))
        outputs = [pool[o] for o in prog["outputs"]]
        loss = sum(o.sum() for o in outputs)
        if isinstance(loss, torch.Tensor) and loss.requires_grad:
            loss.backward()
    except RuntimeError as e:
        return None, None, str(e).split("\n")[0]
    grads = [None if l.dtype == torch.bool else l.grad for l in leaves]
    return outputs, grads, None


def compare(name, got, want64, want32, rtol):
    """The first element of `got` (a {sizes, values} dict) that breaks the rule, as text."""
    if got is None or want64 is None:
        # An input the loss does not reach: PyTorch leaves its grad None; so do we, or zeros.
        if got is None and want64 is None:
            return None
        present = got if got is not None else {"values": want64.flatten().tolist()}
        if all(v == 0 for v in present["values"]):
            return None
        return "%s: one side has no gradient" % name
    if list(got["sizes"]) != list(want64.shape):
        return "%s: sizes %s, PyTorch %s" % (name, got["sizes"], list(want64.shape))
    w64 = want64.detach().flatten().tolist()
    w32 = want32.detach().double().flatten().tolist()
    finite = [abs(v) for v in w64 if math.isfinite(v)]
    m = max(finite) if finite else 0.0
    for i, (g, a, b) in enumerate(zip(got["values"], w64, w32)):
        if (math.isnan(g) and (math.isnan(a) or math.isnan(b))) or g == b or g == a:
            continue
        if math.isfinite(g) and math.isfinite(a):
            ref = abs(b - a) if math.isfinite(b) else 0.0
            if abs(g - a) <= 4 * ref + rtol * (abs(a) + max(m, 1.0)):
                continue
        return "%s[%d]: ours %r, PyTorch float64 %r, float32 %r" % (name, i, g, a, b)
    return None


def check(path):
    with open(path) as f:
        prog = json.load(f)
    rtol = 1e-5 * (1 + math.sqrt(prog["reduction_length"]))
    out64, grads64, err = replay(prog, torch.float64)
    out32, grads32, err32 = replay(prog, torch.float32)
    problems = []
    for side in ("eager", "compiled"):
        run = prog[side]
        if run["error"] or err:
            if not (run["error"] and err):
                problems.append("%s: ours %r, PyTorch %r" % (side, run["error"], err))
            continue
        if err32:
            continue  # PyTorch's float32 refused what float64 ran: nothing to compare with
        for i, (g, a, b) in enumerate(zip(run["outputs"], out64, out32)):
            p = compare("%s output %d" % (side, i), g, a, b, rtol)
            if p:
                problems.append(p)
        for i, (g, a, b) in enumerate(zip(run["grads"], grads64, grads32)):
            p = compare("%s grad of input %d" % (side, i), g, a, b, rtol)
            if p:
                problems.append(p)
    return problems


def main(argv):
    files = []
    for a in argv:
        if os.path.isdir(a):
            files += sorted(os.path.join(a, f) for f in os.listdir(a) if f.endswith(".json"))
        else:
            files.append(a)
    failed = 0
    for path in files:
        problems = check(path)
        if problems:
            failed += 1
            print("FAIL %s" % path)
            for p in problems[:4]:
                print("    " + p)
    print("%d programs checked against PyTorch %s, %d disagree" %
          (len(files), torch.__version__, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
