"""What the oracle checkers share: importing Debian's PyTorch (with a clear error
when /usr/bin/python3 cannot), reading tensors from the cases' JSON, the command
line, and for the layer checkers the ulps measure and the loop over cases."""

import json
import math
import sys

import numpy as np

try:
    import torch
    import torch.nn.functional as F  # noqa: F401 (the expressions use it)
except ImportError as error:
    print(f"{sys.argv[0]}: {sys.executable} cannot import torch ({error}).\n"
          "The oracle lane needs Debian's python3-torch for /usr/bin/python3: run ./dev.sh test, "
          "which installs it.", file=sys.stderr)
    sys.exit(1)

SPECIAL = {"nan": math.nan, "inf": math.inf, "-inf": -math.inf}


def tensor_from_json(t, dtype):
    """The JSON tensor {dtype, shape, data} as a torch tensor of `dtype`."""
    data = [SPECIAL.get(v, v) if isinstance(v, str) else v for v in t["data"]]
    if not data:
        return torch.empty(t["shape"], dtype=dtype)
    return torch.tensor(data, dtype=dtype).reshape(t["shape"])


def parse_args(argv, usage):
    """(json path, --verbose, --filter substring), or exits with the usage."""
    if len(argv) < 2:
        print(usage, file=sys.stderr)
        sys.exit(2)
    verbose = "--verbose" in argv
    only = argv[argv.index("--filter") + 1] if "--filter" in argv else ""
    torch.set_num_threads(1)
    with open(argv[1], encoding="utf-8") as f:
        return json.load(f), verbose, only


def ulps_off(ours, theirs):
    """The largest difference in units of the f32 spacing at torch's largest magnitude."""
    a = np.asarray(ours, dtype=np.float64)
    b = theirs.detach().numpy().reshape(-1).astype(np.float64)
    scale = np.float32(np.max(np.abs(b)))
    return float(np.max(np.abs(a - b) / np.float64(np.spacing(scale))))


def run_cases(argv, usage, family, what, check_case, unit="ulps"):
    """Runs check_case (-> (failures, worst ulps)) on every case of the JSON named in
    argv, printing each failure under `family/name`; returns the exit status. The
    worst difference is reported in `unit`."""
    data, verbose, only = parse_args(argv, usage)
    failed = 0
    for c in data["cases"]:
        if only not in c["name"]:
            continue
        try:
            failures, off = check_case(c)
        except Exception as error:  # noqa: BLE001 (a case's error is its failure, named)
            failures, off = [f"{type(error).__name__}: {error}"], 0.0
        for f in failures:
            print(f"FAIL {family}/{c['name']}: {f}")
        failed += bool(failures)
        if verbose and not failures:
            print(f"ok {family}/{c['name']} ({off:.3g} {unit})")
    print(f"{len(data['cases']) - failed} of {len(data['cases'])} {what} agree with torch")
    return 1 if failed else 0


def compare_all(compared, limit, failures=None):
    """(failures, worst ulps) over (what, our data, torch tensor) triples; each one
    more than `limit` ulps from torch is a failure, added to `failures`."""
    failures = [] if failures is None else failures
    worst = 0.0
    for what, ours, t in compared:
        off = ulps_off(ours, t)
        worst = max(worst, off)
        if off > limit:
            failures.append(f"{what} is {off:.1f} ulps from torch")
    return failures, worst
