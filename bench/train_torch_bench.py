"""The PyTorch side of bench/train_bench.cpp: the same three models, shapes and losses
(f32), one training step = zero_grad(set_to_none) + forward + loss.backward() +
torch.optim.Adam(lr=1e-3).step(), timed as torch_bench.py times. Adam runs with
foreach=True, PyTorch 1.13's fastest CPU path.

Prints JSON: {"name": median_seconds, ...} with names matching Google Benchmark's.
Run with Debian's interpreter: /usr/bin/python3 bench/train_torch_bench.py THREADS [repeats]
"""
import json
import math
import sys

import torch
import torch.nn.functional as F

from torch_bench import median_time


def mlp():
    return torch.nn.Sequential(torch.nn.Linear(784, 512), torch.nn.ReLU(), torch.nn.Linear(512, 512),
                               torch.nn.ReLU(), torch.nn.Linear(512, 10))


def cnn():
    return torch.nn.Sequential(torch.nn.Conv2d(1, 32, 3), torch.nn.ReLU(), torch.nn.MaxPool2d(2),
                               torch.nn.Conv2d(32, 64, 3), torch.nn.ReLU(), torch.nn.MaxPool2d(2),
                               torch.nn.Flatten(), torch.nn.Linear(64 * 5 * 5, 128), torch.nn.ReLU(),
                               torch.nn.Linear(128, 10))


def rotate_half(x):
    half = x.shape[-1] // 2
    return torch.cat((-x[..., half:], x[..., :half]), dim=-1)


class Block(torch.nn.Module):
    """tl::nn::TransformerBlock: pre-norm, RMSNorm, causal rotary attention without
    biases, SwiGLU MLP (the model of tests/oracle/check_torch_layers_attention.py)."""

    def __init__(self, d, heads, d_ff, eps=1e-6, base=10000.0):
        super().__init__()
        self.h, self.dh, self.eps = heads, d // heads, eps
        self.attn_norm = torch.nn.Parameter(torch.ones(d))
        self.q_proj, self.k_proj, self.v_proj, self.o_proj = (torch.nn.Linear(d, d, bias=False) for _ in range(4))
        self.mlp_norm = torch.nn.Parameter(torch.ones(d))
        self.gate_proj = torch.nn.Linear(d, d_ff, bias=False)
        self.up_proj = torch.nn.Linear(d, d_ff, bias=False)
        self.down_proj = torch.nn.Linear(d_ff, d, bias=False)
        self.base = base

    def norm(self, x, w):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * w

    def rotary(self, x):
        t, d = x.shape[1], x.shape[3]
        inv_freq = 1.0 / (self.base ** (torch.arange(0, d, 2, dtype=torch.float64) / d))
        angle = torch.outer(torch.arange(t, dtype=torch.float32), inv_freq.float())
        emb = torch.cat((angle, angle), dim=-1)[None, :, None, :]
        return x * emb.cos() + rotate_half(x) * emb.sin()

    def attn(self, x):
        b, t, d = x.shape
        q = self.rotary(self.q_proj(x).view(b, t, self.h, self.dh)).transpose(1, 2)
        k = self.rotary(self.k_proj(x).view(b, t, self.h, self.dh)).transpose(1, 2)
        v = self.v_proj(x).view(b, t, self.h, self.dh).transpose(1, 2)
        scores = q @ k.transpose(-2, -1) / math.sqrt(self.dh)
        scores = scores.masked_fill(torch.ones(t, t, dtype=torch.bool).triu(1), float("-inf"))
        out = torch.softmax(scores, dim=-1) @ v
        return self.o_proj(out.transpose(1, 2).reshape(b, t, d))

    def forward(self, x):
        h = x + self.attn(self.norm(x, self.attn_norm))
        n = self.norm(h, self.mlp_norm)
        return h + self.down_proj(F.silu(self.gate_proj(n)) * self.up_proj(n))


def step_time(model, loss_fn, x, y, repeats):
    opt = torch.optim.Adam(model.parameters(), lr=1e-3, foreach=True)

    def step():
        opt.zero_grad(set_to_none=True)
        loss_fn(model(x), y).backward()
        opt.step()

    return median_time(step, repeats=repeats)


def main():
    threads = int(sys.argv[1])
    repeats = int(sys.argv[2]) if len(sys.argv) > 2 else 5
    torch.set_num_threads(threads)
    torch.manual_seed(0)
    results = {}
    x, y = torch.randn(256, 784), torch.randint(0, 10, (256,))
    results[f"BM_train_mlp/{threads}"] = step_time(mlp(), F.cross_entropy, x, y, repeats)
    x, y = torch.randn(64, 1, 28, 28), torch.randint(0, 10, (64,))
    results[f"BM_train_cnn/{threads}"] = step_time(cnn(), F.cross_entropy, x, y, repeats)
    x, y = torch.randn(8, 128, 256), torch.randn(8, 128, 256)
    results[f"BM_train_transformer/{threads}"] = step_time(Block(256, 4, 1024), F.mse_loss, x, y, repeats)
    print(json.dumps(results))


if __name__ == "__main__":
    main()
