#!/usr/bin/python3
"""The oracle lane's attention check: loads each case's Params (from tlaloc's init)
with load_state_dict into a PyTorch implementation of the layer written here with
plain tensor ops (PyTorch 1.13 has no scaled_dot_product_attention and no RMSNorm),
applies it to the same input, and compares the output and the gradient of
sum(output^2) with respect to each parameter with tlaloc's.

    /usr/bin/python3 check_torch_layers_attention.py CASES.json [--verbose] [--filter SUBSTRING]

Both sides compute in f32 but sum in different orders (matmul, softmax, mean), so an
element passes within ULPS units of the f32 spacing at the tensor's largest
magnitude (a gradient that is zero in exact arithmetic is checked to be ~0 instead);
a wrong rotary convention, mask, head grouping or scale is far more.
Exits 1 on any failure.
"""

import math
import sys

import numpy as np

from oracle_torch import run_cases, torch, ulps_off

ULPS = 16
ZERO = 1e-6  # relative size below which a gradient counts as zero
USAGE = "usage: check_torch_layers_attention.py CASES.json [--verbose] [--filter SUBSTRING]"


def rotate_half(x):
    half = x.shape[-1] // 2
    return torch.cat((-x[..., half:], x[..., :half]), dim=-1)


def rotary(x, base):
    """GPT-NeoX / LLaMA rotary embedding of x [B, T, H, D] at positions 0..T-1."""
    t, d = x.shape[1], x.shape[3]
    inv_freq = 1.0 / (base ** (torch.arange(0, d, 2, dtype=torch.float64) / d))
    angle = torch.outer(torch.arange(t, dtype=torch.float32), inv_freq.float())
    emb = torch.cat((angle, angle), dim=-1)[None, :, None, :]
    return x * emb.cos() + rotate_half(x) * emb.sin()


class Attention(torch.nn.Module):
    def __init__(self, d_model, num_heads, num_kv_heads, causal, use_rotary, bias, base):
        super().__init__()
        self.h, self.hkv, self.dh = num_heads, num_kv_heads, d_model // num_heads
        self.causal, self.use_rotary, self.base = causal, use_rotary, base
        self.q_proj = torch.nn.Linear(d_model, d_model, bias=bias)
        self.k_proj = torch.nn.Linear(d_model, num_kv_heads * self.dh, bias=bias)
        self.v_proj = torch.nn.Linear(d_model, num_kv_heads * self.dh, bias=bias)
        self.o_proj = torch.nn.Linear(d_model, d_model, bias=bias)

    def forward(self, x):
        b, t, d = x.shape
        q = self.q_proj(x).view(b, t, self.h, self.dh)
        k = self.k_proj(x).view(b, t, self.hkv, self.dh)
        v = self.v_proj(x).view(b, t, self.hkv, self.dh)
        if self.use_rotary:
            q, k = rotary(q, self.base), rotary(k, self.base)
        # LLaMA's repeat_kv: query head i uses kv head i // (h / hkv).
        k = k.repeat_interleave(self.h // self.hkv, dim=2)
        v = v.repeat_interleave(self.h // self.hkv, dim=2)
        q, k, v = (a.transpose(1, 2) for a in (q, k, v))
        scores = q @ k.transpose(-2, -1) / math.sqrt(self.dh)
        if self.causal:
            mask = torch.ones(t, t, dtype=torch.bool).triu(1)
            scores = scores.masked_fill(mask, float("-inf"))
        out = torch.softmax(scores, dim=-1) @ v
        return self.o_proj(out.transpose(1, 2).reshape(b, t, d))


class RMSNorm(torch.nn.Module):
    def __init__(self, d, eps):
        super().__init__()
        self.weight = torch.nn.Parameter(torch.ones(d))
        self.eps = eps

    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * self.weight


class SwiGLU(torch.nn.Module):
    def __init__(self, d, d_ff):
        super().__init__()
        self.gate_proj = torch.nn.Linear(d, d_ff, bias=False)
        self.up_proj = torch.nn.Linear(d, d_ff, bias=False)
        self.down_proj = torch.nn.Linear(d_ff, d, bias=False)

    def forward(self, x):
        return self.down_proj(torch.nn.functional.silu(self.gate_proj(x)) * self.up_proj(x))


class Block(torch.nn.Module):
    """Pre-norm LLaMA-style block; attribute order gives tlaloc's parameter order."""

    def __init__(self, c):
        super().__init__()
        d = c["d_model"]
        self.attn_norm = RMSNorm(d, c["eps"])
        self.attn = Attention(d, c["num_heads"], c["num_kv_heads"], True, True, False, c["base"])
        self.mlp_norm = RMSNorm(d, c["eps"])
        self.mlp = SwiGLU(d, c["d_ff"])

    def forward(self, x):
        h = x + self.attn(self.attn_norm(x))
        return h + self.mlp(self.mlp_norm(h))


def make_module(c):
    if c["kind"] == "mha":
        return Attention(c["d_model"], c["num_heads"], c["num_kv_heads"], c["causal"], c["rotary"], c["bias"],
                         c["base"])
    if c["kind"] == "block":
        return Block(c)
    raise ValueError(f"unknown layer kind {c['kind']}")


def tensor(t):
    return torch.tensor(t["data"], dtype=torch.float32).reshape(t["shape"])


def check_case(c):
    """The failures of one case, as strings, and the largest ulps seen."""
    module = make_module(c)
    names = list(module.state_dict().keys())
    if names != c["params"]["order"]:
        return [f"names {c['params']['order']} are not torch's {names}"], 0.0
    module.load_state_dict({n: tensor(t) for n, t in c["params"]["tensors"].items()}, strict=True)
    theirs = module(tensor(c["input"]))
    if list(theirs.shape) != c["output"]["shape"]:
        return [f"output shape {c['output']['shape']} is not torch's {list(theirs.shape)}"], 0.0
    theirs.pow(2).sum().backward()
    failures, worst = [], 0.0
    compared = [("output", c["output"]["data"], theirs)]
    compared += [(f"grad of '{n}'", c["grads"][n]["data"], p.grad) for n, p in module.named_parameters()]
    # k_proj's bias adds the same q.b_k to every score of a row, which the softmax
    # cancels: its gradient is zero in exact arithmetic and both sides hold rounding
    # noise. A tensor that small next to the case's largest gradient passes when ours
    # is as small.
    zero = ZERO * max(float(p.grad.abs().max()) for p in module.parameters())
    for what, ours, t in compared:
        if what != "output" and float(t.abs().max()) < zero:
            if np.max(np.abs(ours)) >= zero:
                failures.append(f"{what} is not ~0 as torch's is")
            continue
        off = ulps_off(ours, t)
        worst = max(worst, off)
        if off > ULPS:
            failures.append(f"{what} is {off:.1f} ulps from torch")
    return failures, worst


if __name__ == "__main__":
    sys.exit(run_cases(sys.argv, USAGE, "layers_attention", "attention cases", check_case))
