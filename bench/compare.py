"""Prints Tlaloc's medians next to PyTorch's and the ratio (PyTorch time / Tlaloc time:
above 1 means Tlaloc is faster). Usage: compare.py tlaloc.json torch.json"""
import json
import sys


def main():
    with open(sys.argv[1]) as f:
        ours = {}
        for b in json.load(f)["benchmarks"]:
            if b.get("aggregate_name") == "median":
                ours[b["run_name"].replace("/real_time", "")] = b["real_time"] * {"ns": 1e-9, "us": 1e-6, "ms": 1e-3}[b["time_unit"]]
    with open(sys.argv[2]) as f:
        theirs = json.load(f)
    print(f"{'case':32} {'tlaloc':>12} {'pytorch':>12} {'ratio':>7}")
    for name, t in ours.items():
        if name not in theirs:
            continue
        ratio = theirs[name] / t
        print(f"{name:32} {t * 1e6:10.2f}us {theirs[name] * 1e6:10.2f}us {ratio:7.2f}")


if __name__ == "__main__":
    main()
