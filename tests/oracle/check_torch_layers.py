#!/usr/bin/python3
"""The oracle lane's layer check: loads each case's Params (from tlaloc's init) into
the matching torch.nn module with load_state_dict, so tlaloc's names and shapes must
be PyTorch's, applies it to the same input and compares the output with tlaloc's,
and the gradient of sum(output^2) with respect to each parameter (torch.autograd
against tl::grad).

    /usr/bin/python3 check_torch_layers.py CASES.json [--verbose] [--filter SUBSTRING]

Both sides compute in f32 but sum in different orders (matmul, mean, variance), so an
element passes within ULPS units of the f32 spacing at the tensor's largest magnitude;
a wrong formula, transposed weight or misplaced activation is far more. Exits 1 on
any failure.
"""

import sys

from oracle_torch import compare_all, run_cases, torch

ULPS = 16
USAGE = "usage: check_torch_layers.py CASES.json [--verbose] [--filter SUBSTRING]"


class MLP(torch.nn.Module):
    """Linear layers in a ModuleList named `layers`, ReLU between: tlaloc's names."""

    def __init__(self, sizes):
        super().__init__()
        self.layers = torch.nn.ModuleList(torch.nn.Linear(a, b) for a, b in zip(sizes, sizes[1:]))

    def forward(self, x):
        for i, layer in enumerate(self.layers):
            x = layer(x)
            if i + 1 < len(self.layers):
                x = torch.relu(x)
        return x


class RMSNorm(torch.nn.Module):
    """x * rsqrt(mean(x^2) + eps) * weight over the last axes (not in PyTorch 1.13)."""

    def __init__(self, shape, eps):
        super().__init__()
        self.weight = torch.nn.Parameter(torch.ones(shape))
        self.dims = tuple(range(-len(shape), 0))
        self.eps = eps

    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(self.dims, keepdim=True) + self.eps) * self.weight


def make_module(c):
    kind = c["kind"]
    if kind == "linear":
        return torch.nn.Linear(c["in"], c["out"])
    if kind == "mlp":
        return MLP(c["sizes"])
    if kind == "layer_norm":
        return torch.nn.LayerNorm(c["shape"], eps=c["eps"])
    if kind == "embedding":
        return torch.nn.Embedding(c["num"], c["dim"])
    if kind == "rms_norm":
        return RMSNorm(c["shape"], c["eps"])
    raise ValueError(f"unknown layer kind {kind}")


def tensor(t, dtype=torch.float32):
    return torch.tensor(t["data"], dtype=dtype).reshape(t["shape"])


def check_case(c):
    """The failures of one case, as strings, and the largest ulps seen."""
    module = make_module(c)
    names = list(module.state_dict().keys())
    if names != c["params"]["order"]:
        return [f"names {c['params']['order']} are not torch's {names}"], 0.0
    state = {n: tensor(t) for n, t in c["params"]["tensors"].items()}
    module.load_state_dict(state, strict=True)  # also checks every shape
    x = tensor(c["input"], torch.int64 if c["kind"] == "embedding" else torch.float32)
    theirs = module(x)
    if list(theirs.shape) != c["output"]["shape"]:
        return [f"output shape {c['output']['shape']} is not torch's {list(theirs.shape)}"], 0.0
    theirs.pow(2).sum().backward()
    failures = []
    compared = [("output", c["output"]["data"], theirs)]
    compared += [(f"grad of '{n}'", c["grads"][n]["data"], p.grad) for n, p in module.named_parameters()]
    return compare_all(compared, ULPS, failures)


if __name__ == "__main__":
    sys.exit(run_cases(sys.argv, USAGE, "layers", "layer cases", check_case))
