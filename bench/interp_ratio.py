"""Ratios from interp_bench's JSON (medians): interpreted / eager for the MLP, and
the elementwise chain eager / fused and unfused / fused."""
import json
import sys


def medians(path):
    out = {}
    for b in json.load(open(path))["benchmarks"]:
        if b.get("aggregate_name") == "median":
            out[b["run_name"]] = b["real_time"]
    return out


def main():
    m = medians(sys.argv[1])
    for batch in (1, 256):
        e, i = m[f"BM_mlp_eager/{batch}/real_time"], m[f"BM_mlp_interp/{batch}/real_time"]
        print(f"MLP 784-512-512-10 batch {batch:3}: interpreted / eager = {i / e:.3f} (target <= 1.1)")
    for name, what in (("chain", "tanh/exp/sigmoid chain"), ("cheap_chain", "mul/add/relu/abs chain")):
        for t in (1, 2):
            e = m[f"BM_{name}_eager/{t}/real_time"]
            u = m[f"BM_{name}_unfused/{t}/real_time"]
            f = m[f"BM_{name}_fused/{t}/real_time"]
            print(f"6-op {what}, 16M f32, {t} thread(s): eager / fused = {e / f:.2f}, unfused / fused = {u / f:.2f}")


if __name__ == "__main__":
    main()
