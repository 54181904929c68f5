#!/usr/bin/python3
"""The oracle lane's derivative checker: recomputes each row of grad_oracle_cases'
JSON with torch.autograd in float64 and compares with what tlaloc computed.

    /usr/bin/python3 check_torch_grad.py ROWS.json [--verbose] [--filter SUBSTRING]

A row is a gradient-check table row (tests/ad/cases_*.cpp) with a PyTorch
expression over inputs named a, b, c, ... (floating inputs as float64 tensors that
require grad, integer inputs as int64, bools as bool). Per row it compares

  - the value:  expr(a, b, ...);
  - the VJP:    torch.autograd.grad(value, floating inputs, u) for the row's fixed
                cotangent u (an input the value does not depend on gets zeros);
  - the JVP:    torch.autograd.functional.jvp along the row's fixed tangents v (the
                double-backward trick: PyTorch 1.13's forward mode misses ops);

with |tlaloc - torch| <= ATOL * (1 + max |torch|) + RTOL * |torch|, elementwise.
Both sides compute in float64 with formulas that may differ (a fused rule against
an unfused one), so the tolerance allows a few hundred ulps, not more. Prints one
line per mismatch (the row, which quantity, where), the Python error of a row
whose expression torch cannot evaluate, and a summary; exits 1 on any failure.

Needs Debian's python3-torch (PyTorch 1.13), which only Debian's /usr/bin/python3
can import: `./dev.sh test` installs it.
"""

import math
import sys
import time
import traceback

from oracle_torch import F, parse_args, tensor_from_json, torch  # noqa: F401 (F: the expressions)

RTOL = 1e-7
ATOL = 1e-9
FLOATS = {"f64", "f32", "bf16", "f16"}
NAMES = "abcdefgh"


def to_torch(t):
    """A float64 tensor for floating data, int64 for integers (as the table promises), bool for bools."""
    dtype = torch.float64 if t["dtype"] in FLOATS else torch.bool if t["dtype"] == "bool" else torch.int64
    return tensor_from_json(t, dtype)


def compare(what, got_json, want):
    """None when tlaloc's tensor matches torch's, else the reason prefixed by `what`."""
    if not isinstance(want, torch.Tensor):
        return f"{what}: torch gave a {type(want).__name__}, not a tensor"
    got = to_torch(got_json)
    want = want.detach()
    if list(got.shape) != list(want.shape):
        return f"{what}: shape tlaloc {list(got.shape)} torch {list(want.shape)}"
    if got.numel() == 0:
        return None
    g, w = got.to(torch.float64).flatten(), want.to(torch.float64).flatten()
    finite = torch.isfinite(w)
    scale = w[finite].abs().max().item() if finite.any() else 0.0
    tol = ATOL * (1 + scale) + RTOL * w.abs()
    same_special = (g == w) | (torch.isnan(g) & torch.isnan(w))
    err = torch.where(finite & torch.isfinite(g), (g - w).abs(), torch.where(same_special, 0.0, math.inf))
    bad = err > torch.where(finite, tol, torch.zeros_like(tol))
    if not bad.any():
        return None
    i = int(torch.argmax(torch.where(bad, err / tol.clamp_min(1e-300), torch.zeros_like(err))))
    return (f"{what}: {int(bad.sum())} of {g.numel()} outside tolerance, worst at flat index {i}: "
            f"tlaloc {g[i].item()!r} torch {w[i].item()!r} (tol {tol[i].item():.3g})")


def inputs_of(row):
    return [to_torch(t) for t in row["inputs"]]


def evaluate(expr, xs):
    env = {"torch": torch, "F": F}
    env.update(zip(NAMES, xs))
    return eval(expr, env)  # noqa: S307 -- expressions come from our own table


def check_row(row):
    """The reasons the row fails (empty when it passes)."""
    if "error" in row:
        return [f"tlaloc raised: {row['error']}"]
    xs = inputs_of(row)
    diff = [k for k, t in enumerate(row["inputs"]) if t["dtype"] in FLOATS]
    for k in diff:
        xs[k].requires_grad_(True)
    try:
        y = evaluate(row["expr"], xs)
    except Exception:  # pylint: disable=broad-except
        # The whole error, so that a typo in an expression is plain to see.
        return ["torch cannot evaluate the expression:\n" + traceback.format_exc().rstrip()]
    reasons = []
    why = compare("value", row["value"], y)
    if why:
        return [why]  # derivatives of a different function say nothing more

    u = to_torch(row["cotangent"])
    if y.requires_grad and diff:
        grads = torch.autograd.grad(y, [xs[k] for k in diff], u, allow_unused=True)
    else:
        grads = [None] * len(diff)
    for k, g in zip(diff, grads):
        want = torch.zeros_like(xs[k]) if g is None else g
        why = compare(f"vjp of input {NAMES[k]}", row["vjp"][k], want)
        if why:
            reasons.append(why)

    def f_diff(*d):
        args = list(xs)
        for k, t in zip(diff, d):
            args[k] = t
        return evaluate(row["expr"], args)

    primals = tuple(xs[k].detach() for k in diff)
    tangents = tuple(to_torch(row["tangents"][k]) for k in diff)
    if diff:
        _, jv = torch.autograd.functional.jvp(f_diff, primals, tangents, strict=False)
    else:
        jv = torch.zeros_like(y)
    why = compare("jvp", row["jvp"], jv)
    if why:
        reasons.append(why)
    return reasons


def describe(row, limit=12):
    """The row's inputs and tlaloc's results, for --verbose."""
    def short(t):
        if t is None:
            return "-"
        more = ", ..." if len(t["data"]) > limit else ""
        return f"{t['dtype']}{t['shape']} {t['data'][:limit]}{more}"
    lines = [f"    {n} = {short(t)}" for n, t in zip(NAMES, row["inputs"])]
    for key in ("value", "cotangent", "jvp"):
        if key in row:
            lines.append(f"    {key}: {short(row[key])}")
    for k, t in enumerate(row.get("vjp", [])):
        lines.append(f"    vjp {NAMES[k]}: {short(t)}")
    return "\n".join(lines)


def main(argv):
    data, verbose, only = parse_args(argv, __doc__)
    start = time.monotonic()
    rows = [r for r in data["rows"] if only in r["name"]]
    if not rows and not only:
        print("FAILED: the table has no row with a PyTorch expression")
        return 1
    failed = []
    for row in rows:
        reasons = check_row(row)
        if reasons:
            failed.append(row["name"])
            print(f"FAIL {row['name']} [{row['expr']}] (ops {', '.join(row['ops'])})")
            for why in reasons:
                print("    " + why.replace("\n", "\n    "))
            if verbose:
                print(describe(row))
    print(f"oracle.torch_grad: torch {torch.__version__}, {len(rows)} rows (value, VJP and JVP each) "
          f"in {time.monotonic() - start:.1f} s; {len(data.get('without_torch', []))} table rows have no "
          "PyTorch expression")
    if verbose and data.get("without_torch"):
        print("  without: " + ", ".join(data["without_torch"]))
    print(f"{'FAILED' if failed else 'PASSED'}: {len(failed)} of {len(rows)} rows differ from PyTorch"
          + (f" ({', '.join(failed)})" if failed else ""))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
