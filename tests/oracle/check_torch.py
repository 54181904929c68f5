#!/usr/bin/python3
"""The oracle lane's checker: evaluates each case of oracle_cases' JSON with PyTorch
and compares with what tlaloc computed.

    /usr/bin/python3 check_torch.py CASES.json [--verbose] [--filter SUBSTRING]

Each case has a Python expression over inputs named a, b, c, ... (torch tensors of
the recorded dtypes), tlaloc's outputs (or the error tlaloc raised) and `terms`, how
many values each output element accumulates. A case passes when torch gives the same
number of outputs, each with tlaloc's dtype and shape, and values within

    |tlaloc - torch| <= atol * sqrt(terms) + rtol * (1 + log2(terms)) * |torch|

for the output dtype's (rtol, atol) below: rounding errors of a sum of `terms`
values of size ~1 grow like sqrt(terms) in absolute terms (they cancel), and the
relative error of sums and products in any summation order like log2(terms) for
pairwise orders. Integers and bools must be equal, and
NaNs and infinities must sit at the same places. Prints one line per failing case,
then a summary per op family; exits 1 on any failure.

Needs Debian's python3-torch (PyTorch 1.13), which only Debian's /usr/bin/python3
can import: `./dev.sh test` installs it.
"""

import math
import sys
import time

from oracle_torch import F, parse_args, tensor_from_json, torch  # noqa: F401 (F: the expressions)

DTYPES = {
    "f32": torch.float32, "f64": torch.float64, "bf16": torch.bfloat16, "f16": torch.float16,
    "i8": torch.int8, "i16": torch.int16, "i32": torch.int32, "i64": torch.int64, "u8": torch.uint8,
    "bool": torch.bool,
}
# (rtol, atol) per output dtype.
TOLERANCES = {
    torch.float32: (1e-5, 1e-6),
    torch.float64: (1e-12, 1e-12),
    torch.bfloat16: (1e-2, 1e-2),
    torch.float16: (1e-3, 1e-3),
}


# ---- helpers the expressions may use (torch has no single call for these) --------

def over(fn, x, dims, keepdim):
    """A one-axis torch reduction `fn` applied to the axes `dims` flattened together."""
    nd = x.dim()
    dims = sorted({d % nd for d in dims}) if nd else []
    rest = [d for d in range(nd) if d not in dims]
    n = math.prod(x.shape[d] for d in dims)
    y = fn(x.permute(*rest, *dims).reshape(*[x.shape[d] for d in rest], n), dim=-1)
    if keepdim:
        y = y.reshape([1 if d in dims else x.shape[d] for d in range(nd)])
    return y


def edge_pad(a, widths):
    """NumPy's pad(mode='edge'): indices past either end read the border element."""
    for d, (lo, hi) in enumerate(widths):
        n = a.shape[d]
        a = a.index_select(d, torch.arange(-lo, n + hi).clamp(0, n - 1))
    return a


def _clamped_starts(shape, starts, sizes):
    """StableHLO's dynamic_slice rule: each start is moved into [0, size - window]."""
    return [min(max(s, 0), n - k) for s, n, k in zip(starts, shape, sizes)]


def dyn_slice(a, starts, sizes):
    for d, s in enumerate(_clamped_starts(a.shape, starts, sizes)):
        a = a.narrow(d, s, sizes[d])
    return a


def dyn_update(a, u, starts):
    out = a.clone()
    at = _clamped_starts(a.shape, starts, u.shape)
    out[tuple(slice(s, s + k) for s, k in zip(at, u.shape))] = u.to(a.dtype)
    return out


HELPERS = {"torch": torch, "F": F, "over": over, "edge_pad": edge_pad, "dyn_slice": dyn_slice,
           "dyn_update": dyn_update}


# ---- comparison ------------------------------------------------------------------

def to_torch(t):
    return tensor_from_json(t, DTYPES[t["dtype"]])


def compare(got_json, want, terms):
    """None when tlaloc's output matches torch's, else the reason."""
    got = to_torch(got_json)
    if not isinstance(want, torch.Tensor):
        return f"torch gave a {type(want).__name__}, not a tensor"
    reasons = []
    if got.dtype != want.dtype:
        reasons.append(f"dtype tlaloc {got_json['dtype']} torch {str(want.dtype).replace('torch.', '')}")
    if list(got.shape) != list(want.shape):
        return "; ".join(reasons + [f"shape tlaloc {list(got.shape)} torch {list(want.shape)}"])
    if got.numel() == 0:
        return "; ".join(reasons) or None
    if not got.dtype.is_floating_point and not want.dtype.is_floating_point:
        g, w = got.to(torch.int64), want.to(torch.int64)
        bad = (g != w).nonzero()
        if len(bad):
            i = tuple(bad[0].tolist())
            reasons.append(f"{len(bad)} of {g.numel()} differ, first at {list(i)}: "
                           f"tlaloc {g[i].item()} torch {w[i].item()}")
        return "; ".join(reasons) or None
    rtol, atol = TOLERANCES.get(got.dtype, TOLERANCES.get(want.dtype, (1e-5, 1e-6)))
    g, w = got.to(torch.float64).flatten(), want.to(torch.float64).flatten()
    terms = max(terms, 1)
    tol = atol * math.sqrt(terms) + rtol * (1 + math.log2(terms)) * w.abs()
    finite = torch.isfinite(g) & torch.isfinite(w)
    same_special = (g == w) | (torch.isnan(g) & torch.isnan(w))
    # A NaN or infinity on one side only is an infinite error.
    err = torch.where(finite, (g - w).abs(), torch.where(same_special, 0.0, math.inf))
    bad = err > torch.where(finite, tol, torch.zeros_like(tol))
    if bad.any():
        ratio = torch.where(finite, err / tol, err)
        i = int(torch.argmax(torch.where(bad, ratio, torch.zeros_like(ratio))))
        reasons.append(f"{int(bad.sum())} of {g.numel()} outside tolerance; max error {err[bad].max().item():.3g}"
                       f" at flat index {i}: tlaloc {g[i].item()!r} torch {w[i].item()!r}"
                       f" (tol {tol[i].item() if finite[i] else 0:.3g})")
    return "; ".join(reasons) or None


def check_case(case):
    """None when the case passes, else the reason."""
    env = dict(HELPERS)
    for name, t in zip("abcdefgh", case["inputs"]):
        env[name] = to_torch(t)
    try:
        result = eval(case["expr"], env)  # noqa: S307 -- expressions come from our own table
    except Exception as error:  # pylint: disable=broad-except
        also = f"; tlaloc raised too ({case['error']})" if "error" in case else ""
        return f"torch raised {type(error).__name__}: {error}{also}"
    if "error" in case:
        return f"tlaloc raised ({case['error']}) where torch computes"
    results = list(result) if isinstance(result, (tuple, list)) else [result]
    if len(results) != len(case["outputs"]):
        return f"{len(case['outputs'])} outputs from tlaloc, {len(results)} from torch"
    reasons = []
    for k, (got, want) in enumerate(zip(case["outputs"], results)):
        why = compare(got, want, case["terms"])
        if why:
            reasons.append(why if len(results) == 1 else f"output {k}: {why}")
    return "; ".join(reasons) or None


def describe(case, limit=24):
    """Inputs and outputs of a failing case, for --verbose."""
    def short(t):
        data = t["data"]
        more = ", ..." if len(data) > limit else ""
        return f"{t['dtype']}{t['shape']} {data[:limit]}{more}"
    lines = [f"    expr: {case['expr']}"]
    lines += [f"    {n} = {short(t)}" for n, t in zip("abcdefgh", case["inputs"])]
    lines += [f"    tlaloc -> {short(t)}" for t in case.get("outputs", [])]
    return "\n".join(lines)


def main(argv):
    data, verbose, only = parse_args(argv, __doc__)
    start = time.monotonic()
    cases = [c for c in data["cases"] if only in c["name"]]
    per_family = {}
    failures = 0
    for case in cases:
        counts = per_family.setdefault(case["family"], [0, 0])
        counts[0] += 1
        why = check_case(case)
        if why:
            counts[1] += 1
            failures += 1
            print(f"FAIL {case['name']}: {why}  [{case['expr']}]")
            if verbose:
                print(describe(case))
    print(f"oracle.torch: torch {torch.__version__}, {len(cases)} cases in {time.monotonic() - start:.1f} s")
    for family, (n, bad) in per_family.items():
        print(f"  {family:12s} {n:5d} cases, {bad:4d} failed")
    print(f"{'FAILED' if failures else 'PASSED'}: {failures} of {len(cases)} cases differ from PyTorch")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
