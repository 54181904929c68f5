"""The PyTorch side of bench/ad_bench.cpp: the same MLP (784-512-512-10, batch 256,
f32) and loss, forward + loss.backward(), timed as torch_bench.py times.

Prints JSON: {"name": median_seconds, ...}.
Run with Debian's interpreter: /usr/bin/python3 bench/ad_torch_bench.py THREADS [repeats]
"""
import json
import sys

import torch
import torch.nn.functional as F

from torch_bench import median_time


def main():
    threads = int(sys.argv[1])
    repeats = int(sys.argv[2]) if len(sys.argv) > 2 else 5
    torch.set_num_threads(threads)
    gen = torch.Generator().manual_seed(0)
    shapes = [(784, 512), (512,), (512, 512), (512,), (512, 10), (10,)]
    scales = [0.03, 0.1, 0.04, 0.1, 0.04, 0.1]
    params = [(torch.randn(s, generator=gen) * k).requires_grad_() for s, k in zip(shapes, scales)]
    x = torch.randn(256, 784, generator=gen)
    labels = torch.randint(0, 10, (256,), generator=gen)

    def loss():
        h = torch.relu(x @ params[0] + params[1])
        g = torch.relu(h @ params[2] + params[3])
        logits = g @ params[4] + params[5]
        return -(F.log_softmax(logits, -1) * F.one_hot(labels, 10)).sum(-1).mean()

    def forward_backward():
        for p in params:
            p.grad = None
        loss().backward()

    results = {f"torch_mlp_forward_backward/{threads}": median_time(forward_backward, repeats=repeats)}
    with torch.no_grad():
        results[f"torch_mlp_loss_forward/{threads}"] = median_time(loss, repeats=repeats)
    print(json.dumps(results))


if __name__ == "__main__":
    main()
