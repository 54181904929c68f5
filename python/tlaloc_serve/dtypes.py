"""Tlaloc's dtypes, and how each is spelled elsewhere: safetensors, PJRT element
types (XLA's numbering), StableHLO element types and array.array typecodes."""

import array
from collections import namedtuple

DType = namedtuple("DType", "name itemsize safetensors pjrt mlir")

# PJRT element type numbers follow PJRT_Buffer_Type (src/runtime/pjrt/pjrt_abi_buffer.h).
_ALL = (
    DType("f32", 4, "F32", 11, "f32"),
    DType("f64", 8, "F64", 12, "f64"),
    DType("bf16", 2, "BF16", 13, "bf16"),
    DType("f16", 2, "F16", 10, "f16"),
    DType("i8", 1, "I8", 2, "i8"),
    DType("i16", 2, "I16", 3, "i16"),
    DType("i32", 4, "I32", 4, "i32"),
    DType("i64", 8, "I64", 5, "i64"),
    DType("u8", 1, "U8", 6, "ui8"),
    DType("u16", 2, "U16", 7, "ui16"),
    DType("u32", 4, "U32", 8, "ui32"),
    DType("u64", 8, "U64", 9, "ui64"),
    DType("bool", 1, "BOOL", 1, "i1"),  # one byte each, as PJRT's PRED
)

BY_NAME = {d.name: d for d in _ALL}
BY_SAFETENSORS = {d.safetensors: d for d in _ALL}
BY_PJRT = {d.pjrt: d for d in _ALL}
BY_MLIR = {d.mlir: d for d in _ALL}


def _typecodes():
    """array.array typecode -> dtype name, by the typecode's kind and this platform's itemsize."""
    kinds = {"f": "f", "d": "f", "b": "i", "h": "i", "i": "i", "l": "i", "q": "i",
             "B": "u", "H": "u", "I": "u", "L": "u", "Q": "u"}
    out = {}
    for code, kind in kinds.items():
        name = f"{kind}{8 * array.array(code).itemsize}"
        if name in BY_NAME:
            out[code] = name
    return out


TYPECODES = _typecodes()
# dtype name -> the first typecode that holds it ('i' before 'l' for i32, 'q' for i64 on any LP64).
ARRAY_TYPECODE = {}
for _code in "fdbhiqBHIQ":
    ARRAY_TYPECODE.setdefault(TYPECODES[_code], _code)
