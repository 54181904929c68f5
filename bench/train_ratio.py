"""Ratios of training-step times, Tlaloc / PyTorch (below 1: Tlaloc is faster), from
train_bench's JSON and train_torch_bench.py's, each possibly from several rounds run
alternately (a case's time is the median over rounds of each round's median).
Usage: train_ratio.py --ours r1.json [r2.json ...] --theirs t1.json [t2.json ...]"""
import sys

from compare import combine, load_ours, load_theirs

CASES = (
    ("mlp", "MLP 784-512-512-10, batch 256, cross-entropy", 0.7),
    ("cnn", "CNN conv32-pool-conv64-pool-fc128-fc10, 28x28, batch 64", 1.0),
    ("transformer", "TransformerBlock d=256, 4 heads, seq 128, batch 8, MSE", 1.0),
)


def main():
    args = sys.argv[1:]
    split = args.index("--theirs")
    ours = combine([load_ours(p) for p in args[1:split]])
    theirs = combine([load_theirs(p) for p in args[split + 1:]])
    threads = sorted({int(n.rsplit("/", 1)[1]) for n in ours if n.startswith("BM_train_")})
    for t in threads:
        print(f"training step (value_and_grad + Adam), f32, {t} thread(s): Tlaloc / PyTorch")
        for key, what, target in CASES:
            name = f"BM_train_{key}/{t}"
            if name in ours and name in theirs:
                a, b = ours[name], theirs[name]
                print(f"  {what:58} {a * 1e3:8.2f} ms / {b * 1e3:8.2f} ms = {a / b:5.2f} (target <= {target})")


if __name__ == "__main__":
    main()
