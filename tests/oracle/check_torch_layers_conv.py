#!/usr/bin/python3
"""The oracle lane's check of tl::nn's convolutional layers: loads each case's Params
(and BatchNorm2d's running statistics, under PyTorch's buffer names) into the
matching torch.nn module with load_state_dict, applies it in the case's mode to the
same input, and compares the output, the gradient of sum(output^2) (with respect to
each parameter, or to the input for the parameterless pools) and, for BatchNorm2d in
training, the updated running_mean, running_var and num_batches_tracked.

    /usr/bin/python3 check_torch_layers_conv.py CASES.json [--verbose] [--filter SUBSTRING]

Both sides compute in f32 but sum in different orders, so an element passes within
ULPS units of the f32 spacing at the tensor's largest magnitude; a wrong formula,
layout or statistic is far more. Integer tensors must be equal. Exits 1 on any failure.
"""

import sys

from oracle_torch import compare_all, run_cases, torch

ULPS = 16
USAGE = "usage: check_torch_layers_conv.py CASES.json [--verbose] [--filter SUBSTRING]"


def pool_stride(c):
    """tlaloc's stride 0 means the kernel's size, as torch's default stride=None."""
    return [s or k for s, k in zip(c["stride"], c["kernel"])]


def make_module(c):
    kind = c["kind"]
    if kind == "conv2d":
        return torch.nn.Conv2d(c["in"], c["out"], c["kernel"], stride=c["stride"], padding=c["padding"],
                               dilation=c["dilation"], groups=c["groups"], bias=c["bias"])
    if kind == "max_pool2d":
        return torch.nn.MaxPool2d(c["kernel"], stride=pool_stride(c), padding=c["padding"])
    if kind == "avg_pool2d":
        return torch.nn.AvgPool2d(c["kernel"], stride=pool_stride(c), padding=c["padding"])
    if kind == "batch_norm2d":
        return torch.nn.BatchNorm2d(c["num"], eps=c["eps"], momentum=c["momentum"])
    raise ValueError(f"unknown layer kind {kind}")


def tensor(t):
    dtype = torch.int64 if t["int"] else torch.float32
    return torch.tensor(t["data"], dtype=dtype).reshape(t["shape"])


def check_case(c):
    """The failures of one case, as strings, and the largest ulps seen."""
    module = make_module(c)
    names = list(module.state_dict().keys())
    if names != c["params"]["order"]:
        return [f"names {c['params']['order']} are not torch's {names}"], 0.0
    state = {n: tensor(t) for n, t in c["params"]["tensors"].items()}
    module.load_state_dict(state, strict=True)  # also checks every shape
    module.train(c.get("train", True))
    x = tensor(c["input"]).requires_grad_(True)
    theirs = module(x)
    if list(theirs.shape) != c["output"]["shape"]:
        return [f"output shape {c['output']['shape']} is not torch's {list(theirs.shape)}"], 0.0
    theirs.pow(2).sum().backward()
    compared = [("output", c["output"]["data"], theirs)]
    if "input_grad" in c:
        compared.append(("grad of the input", c["input_grad"]["data"], x.grad))
    compared += [(f"grad of '{n}'", c["grads"][n]["data"], p.grad) for n, p in module.named_parameters()]
    failures = []
    for n, t in c.get("new_state", {}).items():
        buffer = dict(module.named_buffers())[n]
        if t["int"]:
            if t["data"] != buffer.reshape(-1).tolist():
                failures.append(f"new {n} {t['data']} is not torch's {buffer.tolist()}")
        else:
            compared.append((f"new {n}", t["data"], buffer))
    return compare_all(compared, ULPS, failures)


if __name__ == "__main__":
    sys.exit(run_cases(sys.argv, USAGE, "layers_conv", "convolutional layer cases", check_case))
