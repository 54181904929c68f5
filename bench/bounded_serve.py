"""The MLP of bench/bounded_export.cpp served from Python (tlaloc_serve, over Tlaloc's
CPU plugin) at every batch size 1..256: the bounded entry point (padded to a
powers-of-two bucket) against the exact export of that size, run alternately; prints
the median time ratio over sizes against the goal (1.1 plus the padding fraction,
(bucket - n) / n), and the bounded model's compiles against the buckets hit.
    bounded_serve.py DIR PLUGIN REPEATS"""
import statistics
import sys
import time

from tlaloc_serve import Model, Tensor


def timed(model, entry, x, repeats):
    model.run(entry, [x])
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        model.run(entry, [x])
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main(directory, plugin, repeats):
    bounded = Model.load(f"{directory}/bounded", plugin_path=plugin)
    exact = Model.load(f"{directory}/exact", plugin_path=plugin)
    ladder = bounded.entry_point("logits").bounded[0].ladder
    ratios, over, hit = [], [], set()
    for n in range(1, 257):
        x = Tensor(bytes(n * 784 * 4), "f32", (n, 784))
        bucket = next(b for b in ladder if b >= n)
        hit.add(bucket)
        ratio = timed(bounded, "logits", x, repeats) / timed(exact, f"b{n}", x, repeats)
        ratios.append(ratio)
        if ratio > 1.1 + (bucket - n) / n:
            over.append(f"{n} ({ratio:.2f})")
    print(f"bounded against exact over batch 1..256: median ratio {statistics.median(ratios):.3f}, at 256 "
          f"{ratios[-1]:.3f}; sizes over 1.1 + padding: {len(over)} {', '.join(over[:10])}")
    print(f"compiles: {bounded.compiled_programs('logits')} for {len(hit)} buckets hit (ladder {list(ladder)})")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], int(sys.argv[3]))
