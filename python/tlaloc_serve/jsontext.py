"""Checks of JSON text made before it is parsed, which the C++ readers make while they
parse: Python's json module recurses once per level and would fail with a bare
RecursionError."""

import re

# A string (to its closing quote, or to the end where it has none) or a bracket.
_TOKENS = re.compile(rb'"(?:[^"\\]|\\.)*"?|[\[\]{}]', re.S)


def nests_deeper(text, limit):
    """Whether the JSON text (str or a bytes-like object) opens more than `limit` arrays
    and objects inside one another, strings skipped. The scan runs in the regular
    expression engine: only strings and brackets reach Python."""
    if isinstance(text, str):
        text = text.encode("utf-8", "surrogatepass")
    depth = 0
    for token in _TOKENS.finditer(text):
        c = token.group()
        if c in (b"[", b"{"):
            depth += 1
            if depth > limit:
                return True
        elif c in (b"]", b"}"):
            depth -= 1
    return False
