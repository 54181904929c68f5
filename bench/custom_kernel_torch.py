"""PyTorch's composed RMSNorm, forward and backward on [4096, 1024] f32 (the work of
bench/custom_kernel_bench.cpp): prints the median seconds over `repeats`.
    custom_kernel_torch.py THREADS REPEATS"""
import statistics
import sys
import time

import torch


def main(threads, repeats):
    torch.set_num_threads(threads)
    g = torch.Generator().manual_seed(0)
    x = torch.randn(4096, 1024, generator=g, requires_grad=True)
    w = torch.randn(1024, generator=g, requires_grad=True)
    dy = torch.randn(4096, 1024, generator=g)

    def step():
        x.grad = w.grad = None
        y = x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6) * w
        (y * dy).sum().backward()

    step()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        step()
        times.append(time.perf_counter() - start)
    print(f"torch {statistics.median(times):.6f}")


if __name__ == "__main__":
    main(int(sys.argv[1]), int(sys.argv[2]))
