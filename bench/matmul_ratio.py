"""Pairs BM_tl_matmul/N/T with BM_cblas_sgemm/N/T from one Google Benchmark JSON run and
prints throughput ratios (above 1: tl::matmul is faster). Usage: matmul_ratio.py run.json"""
import json
import sys


def main():
    with open(sys.argv[1]) as f:
        runs = json.load(f)["benchmarks"]
    scale = {"ns": 1e-3, "us": 1.0, "ms": 1e3, "s": 1e6}
    median = {b["run_name"]: b["real_time"] * scale[b["time_unit"]] for b in runs
              if b.get("aggregate_name") == "median"}
    print(f"{'n/threads':14} {'tl::matmul':>12} {'sgemm':>12} {'ratio':>7}")
    def size_and_threads(name):
        return tuple(int(part) for part in name.split("/")[1:3])

    for name in sorted((n for n in median if n.startswith("BM_tl_matmul/")), key=size_and_threads):
        t = median[name]
        args = name.split("/", 1)[1].replace("/real_time", "")
        direct = median.get(name.replace("BM_tl_matmul", "BM_cblas_sgemm"))
        if direct is None:
            continue
        print(f"{args:14} {t:10.1f}us {direct:10.1f}us {direct / t:7.3f}")


if __name__ == "__main__":
    main()
