"""What both oracle checkers share: importing Debian's PyTorch (with a clear error
when /usr/bin/python3 cannot), reading tensors from the cases' JSON, and the
command line."""

import json
import math
import sys

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
