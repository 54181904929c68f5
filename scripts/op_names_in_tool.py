#!/usr/bin/env python3
"""Counts the public op names that tools/tlaloc-grad spells as string literals.

A public op name is a function or method declared in include/tlaloc/ops.hpp,
derivatives.hpp or tensor.hpp that returns tensors (accessors such as shape() and
dtype() are not ops); a literal is a double-quoted word in a file of tools/tlaloc-grad. Prints
the total, the count per file and per name. Usage: scripts/op_names_in_tool.py [ROOT]
"""
import collections
import pathlib
import re
import sys

root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else pathlib.Path(__file__).resolve().parent.parent)
names = set()
for header in ["ops.hpp", "derivatives.hpp", "tensor.hpp"]:
    in_macro = False  # a #define's lines name its parameters, not ops
    for line in (root / "include" / "tlaloc" / header).read_text().splitlines():
        macro_line = in_macro or line.lstrip().startswith("#define")
        in_macro = macro_line and line.rstrip().endswith("\\")
        if not macro_line and not line.lstrip().startswith("//"):
            # A function or method that returns tensors, or one a macro declares.
            names.update(re.findall(r"\bTensor>? ([a-z_][a-z_0-9]*)\(", line))
            names.update(re.findall(r"\bTLALOC_[A-Z_]*DECL\(([a-z_][a-z_0-9]*)\)", line))

by_name, by_file = collections.Counter(), collections.Counter()
for path in sorted((root / "tools" / "tlaloc-grad").iterdir()):
    if path.suffix not in (".cpp", ".hpp"):
        continue
    for word in re.findall(r'"([a-z_0-9]+)"', path.read_text()):
        if word in names:
            by_name[word] += 1
            by_file[path.name] += 1
print(f"{sum(by_name.values())} public op names as string literals in tools/tlaloc-grad")
print("by file: " + ", ".join(f"{f} {n}" for f, n in by_file.most_common()))
print("by name: " + ", ".join(f"{w} {n}" for w, n in by_name.most_common()))
