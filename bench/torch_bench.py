"""The PyTorch side of bench/elementwise_bench.cpp: the same cases, timed the same way.

Prints JSON: {"name": median_seconds, ...} with names matching Google Benchmark's.
Run with Debian's interpreter: /usr/bin/python3 bench/torch_bench.py [repeats]
"""
import json
import statistics
import sys
import time

import torch


def median_time(fn, min_time=0.2, repeats=5):
    """Median over `repeats` batches of the mean time per call in a batch of >= min_time."""
    fn()
    calls = 1
    while True:
        start = time.perf_counter()
        for _ in range(calls):
            fn()
        elapsed = time.perf_counter() - start
        if elapsed >= min_time / repeats:
            break
        calls *= 2
    samples = []
    for _ in range(repeats):
        start = time.perf_counter()
        for _ in range(calls):
            fn()
        samples.append((time.perf_counter() - start) / calls)
    return statistics.median(samples)


def main():
    repeats = int(sys.argv[1]) if len(sys.argv) > 1 else 5
    gen = torch.Generator().manual_seed(0)
    results = {}
    ops = {
        "add": lambda a, b: a + b,
        "mul": lambda a, b: a * b,
        "tanh": lambda a, b: torch.tanh(a),
        "exp": lambda a, b: torch.exp(a),
        "sigmoid": lambda a, b: torch.sigmoid(a),
        "sum": lambda a, b: torch.sum(a),
    }
    for name, op in ops.items():
        for n in (1 << 20, 1 << 24):
            a = torch.rand(n, generator=gen) * 6 - 3
            b = torch.rand(n, generator=gen) * 6 - 3
            for threads in (1, 2):
                torch.set_num_threads(threads)
                results[f"BM_{name}/{n}/{threads}"] = median_time(lambda: op(a, b), repeats=repeats)
    torch.set_num_threads(1)
    a, b = torch.ones(8), torch.ones(8)
    results["BM_dispatch_add8/8/1"] = median_time(lambda: a + b, repeats=repeats)
    print(json.dumps(results))


if __name__ == "__main__":
    main()
