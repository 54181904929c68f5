"""The signature of a StableHLO program's entry function, read from its text: what
the C++ loader gets from Tlaloc's parser, here from the function's header alone.
The entry is @main when there is one, else the one public function (as in
tlaloc::ir::Module::entry)."""

import re

from .dtypes import BY_MLIR

_FUNC = re.compile(r"func\.func\s+(?:(public|private|nested)\s+)?@([\w.$-]+)\s*\(")
_TENSOR = re.compile(r"tensor<((?:\d+x)*)([a-z]\w*)>")


def _closing(text, start):
    """The index of the ')' matching the '(' before `start`."""
    depth = 1
    for i in range(start, len(text)):
        depth += {"(": 1, ")": -1}.get(text[i], 0)
        if depth == 0:
            return i
    return -1


def _types(span):
    """[(dtype name or the MLIR spelling, shape)] of the tensor types in `span`."""
    out = []
    for dims, element in _TENSOR.findall(span):
        d = BY_MLIR.get(element)
        out.append((d.name if d else element, tuple(int(x) for x in dims.split("x") if x)))
    return out


def signature(text):
    """(inputs, outputs), each [(dtype, shape)], of the entry function; None when the
    text has no function header this reader understands."""
    funcs = [(m.group(2), m.group(1) != "private" and m.group(1) != "nested", m.end())
             for m in _FUNC.finditer(text)]
    chosen = [f for f in funcs if f[0] == "main"] or [f for f in funcs if f[1]]
    if len(chosen) != 1:
        return None
    start = chosen[0][2]
    end = _closing(text, start)
    body = text.find("{", end) if end >= 0 else -1
    if body < 0:
        return None
    results = text[end + 1:body]
    if "->" not in results and results.strip():
        return None
    return _types(text[start:end]), _types(results)
