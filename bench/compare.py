"""Prints Tlaloc's times next to PyTorch's and the ratio (PyTorch time / Tlaloc time:
above 1 means Tlaloc is faster). Each side may come from several rounds run
alternately; a case's time is the median over rounds of each round's median.
Usage: compare.py --ours r1.json [r2.json ...] --theirs t1.json [t2.json ...]"""
import json
import statistics
import sys


def load_ours(path):
    with open(path) as f:
        out = {}
        for b in json.load(f)["benchmarks"]:
            if b.get("aggregate_name") == "median":
                scale = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3}[b["time_unit"]]
                out[b["run_name"].replace("/real_time", "")] = b["real_time"] * scale
        return out


def load_theirs(path):
    with open(path) as f:
        return json.load(f)


def combine(rounds):
    names = rounds[0].keys()
    return {n: statistics.median(r[n] for r in rounds if n in r) for n in names}


def main():
    args = sys.argv[1:]
    split = args.index("--theirs")
    ours = combine([load_ours(p) for p in args[1:split]])
    theirs = combine([load_theirs(p) for p in args[split + 1:]])
    print(f"{'case':32} {'tlaloc':>12} {'pytorch':>12} {'ratio':>7}")
    for name, t in ours.items():
        if name in theirs:
            print(f"{name:32} {t * 1e6:10.2f}us {theirs[name] * 1e6:10.2f}us {theirs[name] / t:7.2f}")


if __name__ == "__main__":
    main()
