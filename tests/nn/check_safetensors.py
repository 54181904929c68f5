"""Another reader opens tlaloc's safetensors files, and tlaloc opens another writer's.

An independent reader and writer of the format, written from its specification with
the standard library only (json, struct): python3-safetensors is not in Debian.

usage: check_safetensors.py INTEROP_PROGRAM WORK_DIR
"""

import json
import math
import os
import struct
import subprocess
import sys

# dtype name -> struct format character (little-endian); BF16 is decoded by hand.
FORMATS = {"F64": "d", "F32": "f", "F16": "e", "BF16": None, "I64": "q", "I32": "i", "I16": "h",
           "I8": "b", "U64": "Q", "U32": "I", "U16": "H", "U8": "B", "BOOL": "?"}
SIZES = {"F64": 8, "F32": 4, "F16": 2, "BF16": 2, "I64": 8, "I32": 4, "I16": 2, "I8": 1,
         "U64": 8, "U32": 4, "U16": 2, "U8": 1, "BOOL": 1}


def no_duplicates(pairs):
    keys = [k for k, _ in pairs]
    if len(keys) != len(set(keys)):
        raise ValueError(f"duplicate keys in {keys}")
    return dict(pairs)


def decode(dtype, raw):
    if dtype == "BF16":
        halves = struct.unpack(f"<{len(raw) // 2}H", raw)
        return [struct.unpack("<f", struct.pack("<I", h << 16))[0] for h in halves]
    n = len(raw) // SIZES[dtype]
    return list(struct.unpack(f"<{n}{FORMATS[dtype]}", raw))


def read(path):
    """Parses a file, checking the format's rules; returns (tensors, metadata, header size)."""
    with open(path, "rb") as f:
        data = f.read()
    assert len(data) >= 8, "shorter than 8 bytes"
    (n,) = struct.unpack("<Q", data[:8])
    assert n <= 100_000_000 and 8 + n <= len(data), f"bad header size {n}"
    assert data[8:9] == b"{", "the header does not begin with '{'"
    header = json.loads(data[8:8 + n].decode("utf-8"), object_pairs_hook=no_duplicates)
    metadata = header.pop("__metadata__", {})
    assert all(isinstance(k, str) and isinstance(v, str) for k, v in metadata.items())
    buffer = data[8 + n:]
    entries = sorted(header.items(), key=lambda kv: tuple(kv[1]["data_offsets"]))
    end = 0
    tensors = {}
    for name, info in entries:
        assert set(info) == {"dtype", "shape", "data_offsets"}, info
        begin, stop = info["data_offsets"]
        assert begin == end, f"{name}: starts at {begin}, expected {end}"
        assert stop - begin == math.prod(info["shape"]) * SIZES[info["dtype"]], name
        tensors[name] = (info["dtype"], info["shape"], decode(info["dtype"], buffer[begin:stop]))
        end = stop
    assert end == len(buffer), f"{len(buffer) - end} trailing bytes"
    return tensors, metadata, n, [name for name, _ in entries]


def check_tlaloc_file(program, work):
    path = os.path.join(work, "from_tlaloc.safetensors")
    subprocess.run([program, "write", path], check=True)
    tensors, metadata, n, order = read(path)
    failures = []
    if n % 8 != 0:
        failures.append(f"header size {n} is not a multiple of 8")
    if metadata != {"purpose": "interop", "unicode": "\u00f1\u2192\u2713"}:
        failures.append(f"metadata {metadata}")
    expected = {f"x.{d}": (d, [2, 3], [bool(i % 2) if d == "BOOL" else i for i in range(6)]) for d in SIZES}
    expected["scalar"] = ("F32", [], [-2.5])
    expected["empty"] = ("F64", [0, 4], [])
    expected["layers.0.weight"] = ("F32", [3, 1], [struct.unpack("<f", struct.pack("<f", v))[0]
                                                   for v in (0.1, -1e30, 3.25)])
    if set(tensors) != set(expected):
        failures.append(f"names {sorted(tensors)} != {sorted(expected)}")
    for name, want in expected.items():
        if tensors.get(name) != want:
            failures.append(f"{name}: {tensors.get(name)} != {want}")
    if order[-3:] != ["scalar", "empty", "layers.0.weight"]:
        failures.append(f"the data is not in the writer's order: {order}")
    return failures


def check_foreign_file(program, work):
    """A file written here, unpadded, names in no particular order: tlaloc reads it."""
    tensors = [("b.weight", "F32", [2, 2], [1.5, -2.0, 3.0, 2.0**-10]), ("a.bias", "I64", [3], [-1, 0, 2**40]),
               ("c", "BF16", [2], [1.0, -0.5]), ("d", "U8", [], [255])]
    header, buffer = {"__metadata__": {"format": "pt"}}, b""
    for name, dtype, shape, values in tensors:
        if dtype == "BF16":
            raw = b"".join(struct.pack("<H", struct.unpack("<I", struct.pack("<f", v))[0] >> 16) for v in values)
        else:
            raw = struct.pack(f"<{len(values)}{FORMATS[dtype]}", *values)
        header[name] = {"dtype": dtype, "shape": shape, "data_offsets": [len(buffer), len(buffer) + len(raw)]}
        buffer += raw
    text = json.dumps(dict(sorted(header.items()))).encode("utf-8")
    path = os.path.join(work, "foreign.safetensors")
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text + buffer)
    out = subprocess.run([program, "read", path], check=True, capture_output=True, text=True).stdout
    got_tensors, got_meta = [], {}
    for line in out.splitlines():
        fields = line.split("\t")
        if fields[0] == "meta":
            got_meta[fields[1]] = fields[2]
        else:
            _, name, dtype, dims, values = fields
            got_tensors.append((name, dtype, [int(d) for d in dims.split(",") if d],
                                [float(v) for v in values.split(",") if v]))
    want = [(name, dtype, shape, [float(v) for v in values]) for name, dtype, shape, values in tensors]
    failures = []
    if got_meta != {"format": "pt"}:
        failures.append(f"metadata {got_meta}")
    if got_tensors != want:  # also in the order of the data, not of the header
        failures.append(f"tensors {got_tensors} != {want}")
    return failures


def main():
    program, work = sys.argv[1], sys.argv[2]
    os.makedirs(work, exist_ok=True)
    failures = check_tlaloc_file(program, work) + check_foreign_file(program, work)
    for f in failures:
        print("FAIL", f)
    print("safetensors interop:", "FAILED" if failures else "ok")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
