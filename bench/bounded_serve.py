"""The MLP of bench/bounded_export.cpp served from Python (tlaloc_serve, over Tlaloc's
CPU plugin) at every batch size 1..256: the bounded entry point (padded to a
powers-of-two bucket) against the exact export of that size, run alternately; prints
the median time ratio over sizes against the median goal (1.1 plus the padding
fraction, (bucket - n) / n), the sizes over their own goal, and the bounded model's
compiles against the buckets hit.
    bounded_serve.py DIR PLUGIN REPEATS"""
import statistics
import sys
import time

from tlaloc_serve import Model, Tensor


def timed(runs, repeats):
    """Median seconds of each of `runs` (functions), run alternately so that a noisy moment
    hits all alike."""
    times = [[] for _ in runs]
    for f in runs:
        f()
    for _ in range(repeats):
        for f, t in zip(runs, times):
            start = time.perf_counter()
            f()
            t.append(time.perf_counter() - start)
    return [statistics.median(t) for t in times]


def main(directory, plugin, repeats):
    bounded = Model.load(f"{directory}/bounded", plugin_path=plugin)
    exact = Model.load(f"{directory}/exact", plugin_path=plugin)
    ladder = bounded.entry_point("logits").bounded[0].ladder
    ratios, goals, over, hit = [], [], [], set()
    for n in range(1, 257):
        x = Tensor(bytes(n * 784 * 4), "f32", (n, 784))
        bucket = next(b for b in ladder if b >= n)
        hit.add(bucket)
        ours, theirs = timed([lambda: bounded.run("logits", [x]), lambda: exact.run(f"b{n}", [x])], repeats)
        ratio = ours / theirs
        ratios.append(ratio)
        goals.append(1.1 + (bucket - n) / n)
        if ratio > goals[-1]:
            over.append(f"{n} ({ratio:.2f})")
    print(f"bounded against exact over batch 1..256: median ratio {statistics.median(ratios):.3f} against a median "
          f"goal of {statistics.median(goals):.3f} (1.1 + the padding fraction); at 256 (no padding) {ratios[-1]:.3f}; "
          f"{len(over)} sizes over their own goal: {', '.join(over)}")
    print(f"compiles: {bounded.compiled_programs('logits')} for {len(hit)} buckets hit (ladder {list(ladder)})")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], int(sys.argv[3]))
