#!/usr/bin/python3
"""The medians of lm_decode_bench's and lm_decode_torch.py's rounds (tokens/s) and the
median of the per-round ratios (Tlaloc / PyTorch).

    lm_decode_ratio.py --ours A1 A2 ... --theirs B1 B2 ...
"""

import statistics
import sys

args = sys.argv[1:]
ours = [float(x) for x in args[args.index("--ours") + 1:args.index("--theirs")]]
theirs = [float(x) for x in args[args.index("--theirs") + 1:]]
ratio = statistics.median(a / b for a, b in zip(ours, theirs))
print(f"Tlaloc {statistics.median(ours):.0f} tokens/s, PyTorch eager {statistics.median(theirs):.0f} tokens/s, "
      f"ratio {ratio:.2f} (median of {len(ours)} per-round ratios)")
