"""A reader of safetensors files that checks every rule of the format that Tlaloc's
own reader checks (docs/CHECKPOINTS.md) before any tensor is handed out."""

import json
import math
import struct
from collections import namedtuple

from .dtypes import BY_SAFETENSORS
from .errors import ArtifactError
from .jsontext import nests_deeper

WHO = "tlaloc_serve.Model.load"
MAX_HEADER = 100_000_000  # the reference reader's limit
MAX_DEPTH = 16  # a header nests three levels (src/io/safetensors_read.cpp, kMaxHeaderDepth)

Weight = namedtuple("Weight", "dtype shape data")  # dtype: a Tlaloc name; data: a memoryview


def _bad(file, what):
    raise ArtifactError(f"{WHO}: {file}: {what}")


def _no_duplicates(file):
    def hook(pairs):
        seen = set()
        for key, _ in pairs:
            if key in seen:
                _bad(file, f'the header has the key "{key}" twice')
            seen.add(key)
        return dict(pairs)
    return hook


def _size(value):
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _entry(name, info, file):
    """(dtype, shape, begin, end) of one header entry, each checked."""
    where = f"tensor '{name}': "
    if not isinstance(info, dict) or set(info) != {"dtype", "shape", "data_offsets"}:
        _bad(file, where + 'must be an object of exactly "dtype", "shape" and "data_offsets"')
    dtype = BY_SAFETENSORS.get(info["dtype"]) if isinstance(info["dtype"], str) else None
    if dtype is None:
        _bad(file, f"{where}unknown dtype {info['dtype']!r}")
    shape, offsets = info["shape"], info["data_offsets"]
    if not isinstance(shape, list) or not all(_size(d) for d in shape):
        _bad(file, where + "shape must be a list of non-negative integers")
    if (not isinstance(offsets, list) or len(offsets) != 2 or not all(_size(o) for o in offsets)
            or offsets[1] < offsets[0]):
        _bad(file, where + "data_offsets must be [begin, end] with 0 <= begin <= end")
    nbytes = math.prod(shape) * dtype.itemsize
    if nbytes != offsets[1] - offsets[0]:
        _bad(file, f"{where}{dtype.safetensors}{shape} needs {nbytes} bytes, data_offsets give "
                   f"{offsets[1] - offsets[0]}")
    return dtype, tuple(shape), offsets[0], offsets[1]


def _header(data, file):
    if len(data) < 8:
        _bad(file, f"{len(data)} bytes: too short for a safetensors file (8-byte header size)")
    (n,) = struct.unpack_from("<Q", data)
    if n > MAX_HEADER or 8 + n > len(data):
        _bad(file, f"header size {n} does not fit the file of {len(data)} bytes (or exceeds {MAX_HEADER})")
    if data[8:9] != b"{":
        _bad(file, "the header does not begin with '{'")
    if nests_deeper(data[8:8 + n], MAX_DEPTH):
        _bad(file, f"the header nests deeper than {MAX_DEPTH} levels")
    try:
        header = json.loads(bytes(data[8:8 + n]).decode("utf-8"), object_pairs_hook=_no_duplicates(file))
    except (ValueError, UnicodeDecodeError) as e:
        _bad(file, f"the header is not valid UTF-8 JSON ({e})")
    if not isinstance(header, dict):
        _bad(file, "the header is not a JSON object")
    return header, 8 + n


def read(data, file):
    """{name: Weight} from the bytes of a safetensors file; `file` names it in errors."""
    view = memoryview(data)
    header, start = _header(view, file)
    metadata = header.pop("__metadata__", {})
    if not isinstance(metadata, dict) or not all(isinstance(v, str) for v in metadata.values()):
        _bad(file, '"__metadata__" must be an object of strings')
    entries = sorted(((name, _entry(name, info, file)) for name, info in header.items()),
                     key=lambda e: (e[1][2], e[1][3]))
    buffer = view[start:]
    out, end = {}, 0
    for name, (dtype, shape, begin, stop) in entries:
        if begin != end:
            _bad(file, f"tensor '{name}' starts at byte {begin} of the data, expected {end} (a gap or overlap)")
        if stop > len(buffer):
            _bad(file, f"tensor '{name}' ends at byte {stop}, past the data's {len(buffer)}")
        chunk = buffer[begin:stop]
        if dtype.name == "bool" and any(b > 1 for b in bytes(chunk)):
            _bad(file, f"tensor '{name}' holds a BOOL byte other than 0 or 1")
        out[name] = Weight(dtype.name, shape, chunk)
        end = stop
    if end != len(buffer):
        _bad(file, f"{len(buffer) - end} bytes after the last tensor's data")
    return out
