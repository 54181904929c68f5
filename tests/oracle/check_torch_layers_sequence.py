#!/usr/bin/python3
"""The oracle lane's GRU check: loads each case's Params (from tlaloc's init) with
load_state_dict into torch.nn.GRU(batch_first=True), runs it on the same input and
initial state, and compares the outputs, h_T and the gradient of sum(outputs^2)
with respect to each parameter with tlaloc's.

    /usr/bin/python3 check_torch_layers_sequence.py CASES.json [--verbose] [--filter SUBSTRING]

Both sides compute in f32 but sum in different orders (matmul), and the rounding
differences are carried through the time steps, so an element passes within ULPS
units of the f32 spacing at the tensor's largest magnitude; a wrong gate order or
equation is far more. Exits 1 on any failure.
"""

import sys

from oracle_torch import compare_all, run_cases, torch

ULPS = 16
USAGE = "usage: check_torch_layers_sequence.py CASES.json [--verbose] [--filter SUBSTRING]"


def tensor(t):
    return torch.tensor(t["data"], dtype=torch.float32).reshape(t["shape"])


def check_case(c):
    """The failures of one case, as strings, and the largest ulps seen."""
    module = torch.nn.GRU(c["input_size"], c["hidden_size"], bias=c["bias"], batch_first=True)
    names = list(module.state_dict().keys())
    if names != c["params"]["order"]:
        return [f"names {c['params']['order']} are not torch's {names}"], 0.0
    module.load_state_dict({n: tensor(t) for n, t in c["params"]["tensors"].items()}, strict=True)
    out, h_last = module(tensor(c["input"]), tensor(c["h0"]).unsqueeze(0))
    h_last = h_last.squeeze(0)
    for what, ours, t in (("output", c["output"], out), ("h_T", c["h_last"], h_last)):
        if list(t.shape) != ours["shape"]:
            return [f"{what} shape {ours['shape']} is not torch's {list(t.shape)}"], 0.0
    out.pow(2).sum().backward()
    compared = [("output", c["output"]["data"], out), ("h_T", c["h_last"]["data"], h_last)]
    compared += [(f"grad of '{n}'", c["grads"][n]["data"], p.grad) for n, p in module.named_parameters()]
    failures = []
    return compare_all(compared, ULPS, failures)


if __name__ == "__main__":
    sys.exit(run_cases(sys.argv, USAGE, "layers_sequence", "sequence cases", check_case))
