#!/usr/bin/python3
"""Decode tokens per second of examples/lm's model in PyTorch eager, for comparison
with bench/lm_decode_bench: the same DecoderLM (tests/oracle/check_torch_lm.py,
loading the artifact's weights.safetensors), a prompt of 16 bytes prefilled, then
greedy decode steps with a KV cache written here in plain torch (preallocated
[1, capacity, kv_heads, d_head] per block, each step writing its position and
attending over positions 0..p), the next id chosen from each step's logits. Prefill
is not timed. Before timing, the cached steps' logits are checked against full
recomputation (within 1e-4). Prints the median over `repeats` runs, in tokens/s.

    /usr/bin/python3 lm_decode_torch.py TRACE.json THREADS [repeats] [tokens]

TRACE.json is what `lm --trace` writes: the model's sizes and the weights' file.
"""

import json
import math
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "oracle"))

from check_torch_layers_attention import rotate_half  # noqa: E402
from check_torch_lm import load_model  # noqa: E402
from oracle_torch import torch  # noqa: E402

CAPACITY = 128


def rotary_at(x, p, base):
    """The rotary embedding of x [1, 1, H, D] at position p (check_torch_layers_attention's convention)."""
    d = x.shape[-1]
    inv_freq = 1.0 / (base ** (torch.arange(0, d, 2, dtype=torch.float64) / d))
    angle = (float(p) * inv_freq).float()
    emb = torch.cat((angle, angle))
    return x * emb.cos() + rotate_half(x) * emb.sin()


def attend(attn, x, p, cache, base):
    """One position of Attention with the cache (k, v) of earlier positions, updated in place."""
    q = rotary_at(attn.q_proj(x).view(1, 1, attn.h, attn.dh), p, base)
    k = rotary_at(attn.k_proj(x).view(1, 1, attn.hkv, attn.dh), p, base)
    cache[0][:, p] = k[:, 0]
    cache[1][:, p] = attn.v_proj(x).view(1, attn.hkv, attn.dh)
    rep = attn.h // attn.hkv
    keys = cache[0][0, :p + 1].repeat_interleave(rep, dim=1).transpose(0, 1)  # [H, p+1, D]
    values = cache[1][0, :p + 1].repeat_interleave(rep, dim=1).transpose(0, 1)
    scores = (q[0, 0, :, None, :] @ keys.transpose(-2, -1)) / math.sqrt(attn.dh)  # [H, 1, p+1]
    out = torch.softmax(scores, dim=-1) @ values  # [H, 1, D]
    return attn.o_proj(out.reshape(1, 1, -1))


def step(model, token, p, caches, base):
    """Logits [vocab] of `token` at position p."""
    h = model.embed(torch.tensor([[token]]))
    for block, cache in zip(model.blocks, caches):
        h = h + attend(block.attn, block.attn_norm(h), p, cache, base)
        h = h + block.mlp(block.mlp_norm(h))
    return model.lm_head(model.norm(h))[0, -1]


def generate(model, cfg, prompt, tokens):
    """(ids, each step's logits, seconds of the decode steps)."""
    hkv, dh = cfg["num_kv_heads"], cfg["d_model"] // cfg["num_heads"]
    caches = [(torch.zeros(1, CAPACITY, hkv, dh), torch.zeros(1, CAPACITY, hkv, dh)) for _ in model.blocks]
    for p, t in enumerate(prompt):  # prefill, one position at a time (not timed)
        logits = step(model, t, p, caches, cfg["base"])
    ids, rows = list(prompt), [logits]
    start = time.perf_counter()
    for _ in range(tokens):
        ids.append(int(logits.argmax()))
        logits = step(model, ids[-1], len(ids) - 1, caches, cfg["base"])
        rows.append(logits)
    ids.append(int(logits.argmax()))
    return ids, rows, time.perf_counter() - start


def main(argv):
    if len(argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    trace, threads = argv[1], int(argv[2])
    repeats = int(argv[3]) if len(argv) > 3 else 5
    tokens = int(argv[4]) if len(argv) > 4 else 100
    torch.set_num_threads(threads)
    with open(trace, encoding="utf-8") as f:
        cfg = json.load(f)
    model = load_model(cfg)
    prompt = list(b"This program is ")
    with torch.no_grad():
        ids, rows, _ = generate(model, cfg, prompt, 8)
        full = model(torch.tensor([ids[:-1]]))[0, len(prompt) - 1:]
        diff = float((torch.stack(rows) - full).abs().max())
        if diff > 1e-4:
            print(f"lm_decode_torch: the cached logits differ from full recomputation by {diff:.2e}", file=sys.stderr)
            return 1
        rates = [tokens / generate(model, cfg, prompt, tokens)[2] for _ in range(repeats)]
    print(f"{statistics.median(rates):.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
