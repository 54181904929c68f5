#!/usr/bin/python3
"""The oracle lane's optimizer check: replays each case of optim_cases' JSON with
torch.optim (SGD, RMSprop, Adam, AdamW), its lr_scheduler (StepLR, ExponentialLR,
CosineAnnealingLR, LambdaLR for warmup then cosine) and torch.nn.utils' clipping, and
compares every step's parameters and the final optimizer state with tlaloc's.

    /usr/bin/python3 check_torch_optim.py CASES.json [--verbose] [--filter SUBSTRING]

Both sides compute in f32 with the same formulas in the same order. They still
differ in the last place: PyTorch's CPU kernels fuse `a + alpha * b` (add with alpha,
addcmul) into one FMA, and tlaloc has no fused multiply-add op, so each such
operation may round differently by half a unit of its operands' scale, and these
differences carry from step to step. An element passes within ULPS units of the f32
spacing at the tensor's largest magnitude (the scale of the operands that made it);
over ten steps the largest seen is 4 units, while a wrong formula, option or rate is
hundreds to millions of units off. Frozen parameters must not change at all. Exits 1
on any failure.
"""

import math
import sys

import numpy as np

from oracle_torch import parse_args, torch

ULPS = 8
USAGE = "usage: check_torch_optim.py CASES.json [--verbose] [--filter SUBSTRING]"


def make_optimizer(o, params):
    kind, lr = o["kind"], o["lr"]
    if kind == "sgd":
        return torch.optim.SGD(params, lr=lr, momentum=o.get("momentum", 0.0), dampening=o.get("dampening", 0.0),
                               weight_decay=o.get("weight_decay", 0.0), nesterov=o.get("nesterov", False))
    if kind == "rmsprop":
        return torch.optim.RMSprop(params, lr=lr, alpha=o.get("alpha", 0.99), eps=o.get("eps", 1e-8),
                                   weight_decay=o.get("weight_decay", 0.0), momentum=o.get("momentum", 0.0),
                                   centered=o.get("centered", False))
    betas = tuple(o.get("betas", (0.9, 0.999)))
    if kind == "adam":
        return torch.optim.Adam(params, lr=lr, betas=betas, eps=o.get("eps", 1e-8),
                                weight_decay=o.get("weight_decay", 0.0), amsgrad=o.get("amsgrad", False))
    if kind == "adamw":
        return torch.optim.AdamW(params, lr=lr, betas=betas, eps=o.get("eps", 1e-8),
                                 weight_decay=o.get("weight_decay", 1e-2), amsgrad=o.get("amsgrad", False))
    raise ValueError(f"unknown optimizer {kind}")


def make_scheduler(s, opt, lr):
    kind = s["kind"]
    sched = torch.optim.lr_scheduler
    if kind == "constant":
        return None
    if kind == "step":
        return sched.StepLR(opt, step_size=s["step_size"], gamma=s["gamma"])
    if kind == "exponential":
        return sched.ExponentialLR(opt, gamma=s["gamma"])
    if kind == "cosine":
        return sched.CosineAnnealingLR(opt, T_max=s["t_max"], eta_min=s["eta_min"])
    if kind == "warmup_cosine":
        warmup, total, eta_min = s["warmup"], s["total"], s["eta_min"]

        def factor(t):
            if t < warmup:
                return t / warmup
            progress = min(t - warmup, total - warmup) / (total - warmup)
            return (eta_min + (lr - eta_min) * 0.5 * (1 + math.cos(math.pi * progress))) / lr
        return sched.LambdaLR(opt, factor)
    raise ValueError(f"unknown schedule {kind}")


def ulps_off(ours, theirs):
    """The largest difference in units of the f32 spacing at the tensor's scale."""
    a = np.asarray(ours, dtype=np.float32)
    b = theirs.detach().numpy().reshape(-1).astype(np.float32)
    if not b.size:
        return 0.0
    scale = np.maximum(np.maximum(np.abs(a), np.abs(b)), np.float32(np.max(np.abs(b))))
    diff = np.abs(a.astype(np.float64) - b.astype(np.float64))
    return float(np.max(diff / np.spacing(scale).astype(np.float64)))


def check_case(c):
    """The failures of one case, as strings, and the largest ulps seen."""
    names = [p["name"] for p in c["params"]]
    frozen = set(c["frozen"])
    params = [torch.tensor(p["data"], dtype=torch.float32).reshape(p["shape"]) for p in c["params"]]
    trainable = [p.requires_grad_(True) for n, p in zip(names, params) if n not in frozen]
    opt = make_optimizer(c["optimizer"], trainable)
    scheduler = make_scheduler(c["schedule"], opt, c["optimizer"]["lr"])
    failures, worst = [], 0.0
    for step, (grads, results) in enumerate(zip(c["grads"], c["results"])):
        for n, p, g in zip(names, params, grads):
            if n not in frozen:
                p.grad = torch.tensor(g, dtype=torch.float32).reshape(p.shape)
        if "clip_norm" in c:
            torch.nn.utils.clip_grad_norm_(trainable, c["clip_norm"])
        if "clip_value" in c:
            torch.nn.utils.clip_grad_value_(trainable, c["clip_value"])
        opt.step()
        if scheduler is not None:
            scheduler.step()
        for n, p, ours in zip(names, params, results):
            if n in frozen:
                if ours != c["params"][names.index(n)]["data"]:
                    failures.append(f"step {step + 1}: frozen '{n}' changed")
                continue
            off = ulps_off(ours, p)
            worst = max(worst, off)
            if off > ULPS:
                failures.append(f"step {step + 1}: '{n}' is {off:.1f} ulps from torch")
    by_name = dict(zip(names, params))
    expected_keys = set()
    for n in names:
        if n in frozen:
            continue
        for key, value in opt.state[by_name[n]].items():
            if value is None:  # SGD without momentum keeps a None buffer
                continue
            if key == "step":
                if int(value) != c["step"]:
                    failures.append(f"state step is {c['step']}, torch's {int(value)}")
                continue
            slot = f"{key}.{n}"
            expected_keys.add(slot)
            if slot not in c["state"]:
                failures.append(f"state has no '{slot}'")
                continue
            off = ulps_off(c["state"][slot], value)
            worst = max(worst, off)
            if off > ULPS:
                failures.append(f"state '{slot}' is {off:.1f} ulps from torch")
    extra = set(c["state"]) - expected_keys
    if extra:
        failures.append(f"state has entries torch does not: {sorted(extra)}")
    return failures, worst


def main():
    data, verbose, only = parse_args(sys.argv, USAGE)
    failed = 0
    cases = [c for c in data["cases"] if only in c["name"]]
    for c in cases:
        failures, worst = check_case(c)
        if failures:
            failed += 1
            print(f"FAIL optim/{c['name']}: " + "; ".join(failures[:5]))
        elif verbose:
            print(f"ok   optim/{c['name']} (largest difference {worst:.2f} ulps)")
    print(f"check_torch_optim: {len(cases) - failed} of {len(cases)} cases match torch.optim")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
