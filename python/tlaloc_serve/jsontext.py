"""Checks of JSON text made before it is parsed, which the C++ readers make while they
parse: Python's json module recurses once per level and would fail with a bare
RecursionError."""


def nests_deeper(text, limit):
    """Whether the JSON text (str or bytes) opens more than `limit` arrays and objects
    inside one another, strings skipped."""
    if isinstance(text, (bytes, bytearray, memoryview)):
        text = bytes(text).decode("utf-8", errors="replace")
    depth, in_string, escaped = 0, False, False
    for c in text:
        if in_string:
            if escaped:
                escaped = False
            elif c == "\\":
                escaped = True
            elif c == '"':
                in_string = False
        elif c == '"':
            in_string = True
        elif c in "[{":
            depth += 1
            if depth > limit:
                return True
        elif c in "]}":
            depth -= 1
    return False
