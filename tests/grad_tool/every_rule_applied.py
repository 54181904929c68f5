#!/usr/bin/python3
"""Checks that the tests apply every build-time rule tlaloc-grad has.

Usage: every_rule_applied.py TOOL DUMP_DIR...

TOOL --list-rules names the functions and operators tlaloc-grad differentiates. A
rule counts as applied when a generated derivative in one of the dump directories
(the tests' .grad.cpp files, whose bits test grad_tool.bit_identical and
grad_tool.random_bit_identical compare with the traced ones) uses it:

- a reverse sweep writes each op's shares after a comment of its own,
  `// mul, line 95` (or `// sum, tlaloc/derived_ops.hpp:51`);
- forward mode writes an active op's tangent on the line after the op, whose
  comment is `// mul, line 95: h * h`.

Prints the rules no derivative applies and exits 1 if there are any.
"""
import pathlib
import re
import subprocess
import sys

SHARES = re.compile(r"^\s*// ([a-z_0-9]+), (line \d+|\S+:\d+)$")
OP = re.compile(r"// ([a-z_0-9]+), (line \d+|\S+:\d+): ")
TANGENT = re.compile(r"^\s*(const tl::Tensor )?t_\w+ = ")


def applied(text):
    lines = text.splitlines()
    found = set()
    for i, line in enumerate(lines):
        shares = SHARES.match(line)
        if shares:
            found.add(shares.group(1))
            continue
        op = OP.search(line)
        if op and i + 1 < len(lines) and TANGENT.match(lines[i + 1]):
            found.add(op.group(1))
    return found


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    rules = subprocess.run([sys.argv[1], "--list-rules"], check=True, capture_output=True, text=True).stdout.split()
    if not rules:
        sys.exit("every_rule_applied.py: the tool listed no rules")
    found = set()
    files = 0
    for directory in sys.argv[2:]:
        for path in sorted(pathlib.Path(directory).glob("*.grad.cpp")):
            found |= applied(path.read_text())
            files += 1
    missing = [r for r in rules if r not in found]
    print(f"{len(rules)} rules, {files} generated derivatives: {len(rules) - len(missing)} rules applied")
    if missing:
        print("not applied by any test: " + " ".join(missing))
        sys.exit(1)


if __name__ == "__main__":
    main()
