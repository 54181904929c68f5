"""Model: an artifact loaded onto a PJRT device, with every check of the C++ loader
(src/serve/model.cpp) done before anything runs, and runs whose inputs are checked
against the manifest before they reach the plugin."""

import array
import itertools
import math
import struct
import os
from collections import namedtuple

from . import manifest as mf
from . import program, safetensors
from .client import Client
from .dtypes import ARRAY_TYPECODE, BY_NAME, TYPECODES
from .errors import InputError, PluginError
from .pjrt import ENV, Plugin


class Tensor(namedtuple("Tensor", "data dtype shape")):
    """Raw row-major little-endian bytes with a Tlaloc dtype name and a shape: what a run
    returns, and one way to hand it an input with its dtype and shape declared."""

    def to_array(self):
        """The data as an array.array (f32, f64 and the integer dtypes)."""
        if self.dtype not in ARRAY_TYPECODE:
            raise InputError(f"tlaloc_serve.Tensor: no array.array typecode holds {self.dtype}")
        out = array.array(ARRAY_TYPECODE[self.dtype])
        out.frombytes(self.data)
        return out


def _spec_text(dtype, shape):
    return f"{dtype}[{', '.join(str(d) for d in shape)}]"


class Model:
    """A served artifact. Model.load(dir, plugin_path=None, client_options=None) reads and
    checks it, compiles each program on the plugin's device and copies the weights there once."""

    def __init__(self, client, m, executables, weights):
        self._client, self._manifest = client, m
        self._executables, self._weights = executables, weights  # executables: per entry, per bucket
        self._texts = {}
        self._lengths = {}  # valid lengths as device buffers, made once per value and kept

    @classmethod
    def load(cls, directory, plugin_path=None, client_options=None, ffi_handlers=None):
        """`plugin_path`: a plugin's path, or "tlaloc_cpu" for Tlaloc's CPU plugin installed beside this
        package; it defaults to TLALOC_PJRT_PLUGIN_PATH. `client_options`, a dict of
        str, int, float or bool, goes to PJRT_Client_Create. `ffi_handlers`, a dict of
        custom_call target names to XLA FFI handlers (ctypes functions or addresses), are
        registered with the plugin's FFI extension before anything compiles: the kernels
        the programs call (docs/CUSTOM_KERNELS.md)."""
        directory = os.fspath(directory)
        m = mf.load(directory)
        wfile = os.path.join(directory, m.weights.path)
        wbytes = mf.read_file(wfile, directory)
        mf.check_hash(wfile, wbytes, m.weights.sha256)
        weights = safetensors.read(wbytes, wfile)
        texts = {}  # per entry, (path, text) per bucket; one for an exact entry point
        for e in m.entries:
            for w in e.weights:
                if w not in weights:
                    mf.bad(wfile, f"weight '{w}' of entry point '{e.name}' is not in the file")
            texts[e.name] = []
            for sizes, hashed in _programs(e):
                pfile = os.path.join(directory, hashed.path)
                texts[e.name].append((pfile, mf.read_file(pfile, directory)))
                mf.check_hash(pfile, texts[e.name][-1][1], hashed.sha256)
                _check_signature(pfile, e, texts[e.name][-1][1], weights, sizes)
        plugin = Plugin(plugin_path if plugin_path is not None else os.environ.get(ENV, ""))
        for target, handler in (ffi_handlers or {}).items():
            plugin.register_ffi_handler(target, handler)
        client = Client(plugin, client_options)
        model = cls(client, m, {}, {})
        model._texts = texts
        try:
            for e in m.entries:
                model._executables[e.name] = {}
                if not e.bounded:  # a bounded entry point's buckets compile at their first run
                    model._compiled(e, 0)
                for w in e.weights:
                    if w not in model._weights:
                        t = weights[w]
                        model._weights[w] = client.to_device(t.data, BY_NAME[t.dtype], t.shape)
        except BaseException:
            model.close()
            raise
        return model

    def close(self):
        """Frees the device buffers, executables and client (also done when collected)."""
        for b in list(self._weights.values()) + list(getattr(self, "_lengths", {}).values()):
            b.close()
        self._lengths = {}
        for per_bucket in self._executables.values():
            for x in per_bucket.values():
                x.close()
        self._weights, self._executables = {}, {}
        if self._client is not None:
            self._client.close()
            self._client = None

    __del__ = close

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    @property
    def content_hash(self):
        return self._manifest.content_hash

    @property
    def platform_name(self):
        return self._client.platform_name

    def entry_points(self):
        """The entry point names, in the manifest's order."""
        return [e.name for e in self._manifest.entries]

    def entry_point(self, name):
        """The manifest's entry point (name, program, weights, inputs, outputs); inputs and
        outputs are TensorSpec(name, dtype, shape)."""
        for e in self._manifest.entries:
            if e.name == name:
                return e
        raise InputError(f"tlaloc_serve.Model: no entry point '{name}' (the artifact has "
                         f"{', '.join(self.entry_points())})")

    def run(self, entry, inputs):
        """Runs `entry` on `inputs`, a list in the manifest's order or a dict by name. Each
        input is bytes/bytearray/memoryview (the manifest's dtype and shape; the byte length
        is checked), an array.array (its typecode gives the dtype, its length the element
        count) or a Tensor(data, dtype, shape) declaring both. Returns a list of Tensor."""
        if self._client is None:
            raise InputError("tlaloc_serve.Model.run: the model is closed")
        e = self.entry_point(entry)
        if e.bounded:
            return self._run_bounded(e, _in_order(e, inputs))
        data = [_checked_input(e, spec, x) for spec, x in zip(e.inputs, _in_order(e, inputs))]
        return [t for t, _ in self._run_program(e, 0, data, [s.shape for s in e.inputs],
                                                [s.shape for s in e.outputs])]

    def compiled_programs(self, entry):
        """Programs compiled for `entry` so far: 1 for an exact one, the buckets its runs
        have used for a bounded one (docs/DYNAMIC_SHAPES.md)."""
        return len(self._executables[self.entry_point(entry).name])

    def _compiled(self, e, k):
        """The executable of entry point `e`'s bucket k, compiled at its first use."""
        if k not in self._executables[e.name]:
            pfile, text = self._texts[e.name][k]
            exe = self._client.compile(text)
            self._executables[e.name][k] = exe
            _check_compiled(pfile, e, exe, _programs(e)[k][0])
        return self._executables[e.name][k]

    def _run_program(self, e, k, data, in_shapes, out_shapes, lengths=()):
        """Runs bucket k of `e` on the inputs' bytes (after the weights and the valid lengths)."""
        exe = self._compiled(e, k)
        device, outputs = [], []
        try:
            device = [self._client.to_device(d, BY_NAME[s.dtype], shape)
                      for d, s, shape in zip(data, e.inputs, in_shapes)]
            args = [self._weights[w] for w in e.weights] + [self._length(n) for n in lengths] + device
            donated = [False] * (len(e.weights) + len(lengths)) + [True] * len(device)
            outputs = exe.run(args, donated, len(e.outputs))
            return [(_fetch(e, spec, b, shape), shape) for spec, b, shape in zip(e.outputs, outputs, out_shapes)]
        finally:
            for b in outputs + device:
                b.close()

    def _length(self, n):
        """A valid length as an i64 scalar on the device, made at its first use."""
        if n not in self._lengths:
            self._lengths[n] = self._client.to_device(struct.pack("=q", n), BY_NAME["i64"], ())
        return self._lengths[n]

    def _run_bounded(self, e, inputs):
        """Sizes read and checked as the C++ loader does, inputs padded with zeros to the
        smallest bucket, outputs cut back to the sizes."""
        given = [_bounded_input(e, spec, x) for spec, x in zip(e.inputs, inputs)]
        sizes = {}
        for spec, (_, shape) in zip(e.inputs, given):
            for a, name in enumerate(spec.dims):
                if name and sizes.setdefault(name, shape[a]) != shape[a]:
                    raise InputError(f"tlaloc_serve.Model.run: entry point '{e.name}': dimension '{name}' is "
                                     f"{sizes[name]} in one input and {shape[a]} in input '{spec.name}'")
        for d in e.bounded:
            if sizes[d.name] > d.bound:
                raise InputError(f"tlaloc_serve.Model.run: entry point '{e.name}': dimension '{d.name}' is "
                                 f"{sizes[d.name]}, over its bound {d.bound}")
        bucket = tuple(next(n for n in d.ladder if n >= sizes[d.name]) for d in e.bounded)
        at = dict(zip((d.name for d in e.bounded), bucket))
        k = [sizes for sizes, _ in _programs(e)].index(bucket)
        in_shapes = [_shape_at(s, at) for s in e.inputs]
        data = [_corner(view, shape, to, BY_NAME[s.dtype].itemsize)
                for (view, shape), to, s in zip(given, in_shapes, e.inputs)]
        results = self._run_program(e, k, data, in_shapes, [_shape_at(s, at) for s in e.outputs],
                                    [sizes[d.name] for d in e.bounded])
        out = []
        for (t, shape), spec in zip(results, e.outputs):
            to = _shape_at(spec, sizes)
            out.append(Tensor(_corner(memoryview(t.data), shape, to, BY_NAME[t.dtype].itemsize), t.dtype, to))
        return out


def _programs(e):
    """[(bucket sizes, HashedFile)] of an entry point: its smaller buckets, then its
    program at the bounds (one, with sizes (), for an exact entry point)."""
    return [(b.sizes, b.program) for b in e.buckets] + [(mf.all_buckets(e.bounded)[-1], e.program)]


def _shape_at(spec, sizes):
    """A spec's shape with its bounded axes at `sizes`, a dict by dimension name."""
    if not spec.dims:
        return spec.shape
    return tuple(sizes[n] if n else d for n, d in zip(spec.dims, spec.shape))


def _corner(data, shape, to, itemsize):
    """Row-major `data` of `shape` copied into a zero array of shape `to` where their
    extents overlap: padding when `to` is larger, cutting when it is smaller. The trailing
    axes on which the two agree are copied as one run (one copy when only the first axis
    differs)."""
    shape, to = tuple(shape), tuple(to)
    if shape == to:
        return data
    out = bytearray(math.prod(to) * itemsize)
    if 0 in shape or 0 in to:
        return out
    k = len(shape) - 1
    while k > 0 and shape[k] == to[k]:
        k -= 1
    run = min(shape[k], to[k]) * math.prod(shape[k + 1:]) * itemsize
    src_strides = [math.prod(shape[a + 1:]) * itemsize for a in range(k)]
    dst_strides = [math.prod(to[a + 1:]) * itemsize for a in range(k)]
    view = memoryview(data).cast("B")
    for idx in itertools.product(*(range(min(shape[a], to[a])) for a in range(k))):
        src = sum(i * st for i, st in zip(idx, src_strides))
        dst = sum(i * st for i, st in zip(idx, dst_strides))
        out[dst:dst + run] = view[src:src + run]
    return out


def _bounded_input(e, spec, x):
    """(bytes view, shape) of an input of a bounded entry point: a Tensor declares its shape;
    bytes or an array.array may be given where one axis alone is bounded (its size then
    follows from the length)."""
    where = f"tlaloc_serve.Model.run: entry point '{e.name}' input '{spec.name}'"
    if isinstance(x, Tensor):
        dtype, shape, x = x.dtype, tuple(x.shape), x.data
    elif isinstance(x, (bytes, bytearray, memoryview, array.array)):
        dtype = TYPECODES.get(x.typecode, f"array typecode '{x.typecode}'") if isinstance(x, array.array) \
            else spec.dtype
        shape = None
    else:
        raise InputError(f"{where} is a {type(x).__name__}; pass bytes, bytearray, memoryview, array.array "
                         f"or tlaloc_serve.Tensor")
    if dtype != spec.dtype:
        raise InputError(f"{where} is {dtype}, expected {spec.dtype}")
    view = memoryview(x)
    if not view.c_contiguous:
        raise InputError(f"{where} is not a C-contiguous buffer")
    itemsize = BY_NAME[spec.dtype].itemsize
    bounded = [a for a, n in enumerate(spec.dims) if n]
    if shape is None:
        if len(bounded) != 1:
            raise InputError(f"{where} has {len(bounded)} bounded axes; pass a tlaloc_serve.Tensor declaring its "
                             f"shape")
        rest = math.prod(d for a, d in enumerate(spec.shape) if a != bounded[0]) * itemsize
        if rest == 0 or view.nbytes % rest:
            raise InputError(f"{where} has {view.nbytes} bytes, not a whole number of rows of {rest}")
        shape = tuple(view.nbytes // rest if a == bounded[0] else d for a, d in enumerate(spec.shape))
    fits = len(shape) == len(spec.shape) and all(n or d == s for n, d, s in zip(spec.dims or ("",) * len(shape),
                                                                               shape, spec.shape))
    if not fits:
        dims = ", ".join(f'"{n}"' if n else str(d) for n, d in zip(spec.dims, spec.shape))
        raise InputError(f"{where} is {_spec_text(dtype, shape)}, which does not fit its dims ({dims})")
    if view.nbytes != math.prod(shape) * itemsize:
        raise InputError(f"{where} has {view.nbytes} bytes, expected {math.prod(shape) * itemsize} "
                         f"({_spec_text(dtype, shape)})")
    if spec.range is not None:
        _check_range(where, spec, view)
    return view, shape


def _check_signature(file, e, text, weights, sizes):
    """The program must take the weights, then (bounded) the valid lengths, then the inputs,
    and give the outputs, as the manifest says (at its bucket's sizes)."""
    try:
        sig = program.signature(text.decode("utf-8"))
    except UnicodeDecodeError:
        sig = None
    if sig is None:
        mf.bad(file, "no entry function whose signature can be read (@main, or the one public function)")
    at = dict(zip((d.name for d in e.bounded), sizes))
    want_in = [(weights[w].dtype, weights[w].shape) for w in e.weights] + [("i64", ())] * len(e.bounded)
    want_in += [(s.dtype, _shape_at(s, at)) for s in e.inputs]
    want_out = [(s.dtype, _shape_at(s, at)) for s in e.outputs]
    if sig != (want_in, want_out):
        lengths = f"{len(e.bounded)} valid lengths, then " if e.bounded else ""
        mf.bad(file, f"the program's signature is not the manifest's for entry point '{e.name}' (weights, then "
                     f"{lengths}inputs {len(e.inputs)}, giving outputs {len(e.outputs)})")


def _check_compiled(file, e, exe, sizes):
    """What the plugin compiled must give the manifest's outputs."""
    got = exe.output_types()
    at = dict(zip((d.name for d in e.bounded), sizes))
    want = [(BY_NAME[s.dtype], _shape_at(s, at)) for s in e.outputs]
    if got is not None and got != want:
        shown = ", ".join(_spec_text(d.name if d else "?", s) for d, s in got)
        raise PluginError(f"tlaloc_serve.Model.load: {file}: the plugin compiled entry point '{e.name}' to "
                          f"outputs ({shown}), the manifest says "
                          f"({', '.join(_spec_text(s.dtype, s.shape) for s in e.outputs)})")


def _in_order(e, inputs):
    who = f"tlaloc_serve.Model.run: entry point '{e.name}'"
    if isinstance(inputs, dict):
        names = [s.name for s in e.inputs]
        unknown = sorted(set(inputs) - set(names))
        missing = [n for n in names if n not in inputs]
        if unknown or missing:
            raise InputError(f"{who} takes inputs ({', '.join(names)}); missing: {missing}, unknown: {unknown}")
        return [inputs[n] for n in names]
    inputs = list(inputs)
    if len(inputs) != len(e.inputs):
        raise InputError(f"{who} takes {len(e.inputs)} inputs, got {len(inputs)}")
    return inputs


def _checked_input(e, spec, x):
    """The bytes of input `x` for `spec`, after its dtype, shape and size are checked."""
    where = f"tlaloc_serve.Model.run: entry point '{e.name}' input '{spec.name}'"
    want = _spec_text(spec.dtype, spec.shape)
    dtype, shape = spec.dtype, None
    if isinstance(x, Tensor):
        dtype, shape, x = x.dtype, tuple(x.shape), x.data
    elif isinstance(x, array.array):
        dtype = TYPECODES.get(x.typecode, f"array typecode '{x.typecode}'")
    elif not isinstance(x, (bytes, bytearray, memoryview)):
        raise InputError(f"{where} is a {type(x).__name__}; pass bytes, bytearray, memoryview, array.array "
                         f"or tlaloc_serve.Tensor")
    if dtype != spec.dtype or (shape is not None and shape != spec.shape):
        raise InputError(f"{where} is {_spec_text(dtype, shape) if shape is not None else dtype}, expected {want}")
    view = memoryview(x)
    if not view.c_contiguous:
        raise InputError(f"{where} is not a C-contiguous buffer")
    nbytes = math.prod(spec.shape) * BY_NAME[spec.dtype].itemsize
    if view.nbytes != nbytes:
        raise InputError(f"{where} has {view.nbytes} bytes, expected {nbytes} ({want})")
    if spec.range is not None:
        _check_range(where, spec, view)
    return view


_STRUCT_CODES = {"i8": "b", "i16": "h", "i32": "i", "i64": "q", "u8": "B", "u16": "H", "u32": "I", "u64": "Q"}


def _check_range(where, spec, view):
    """An integer input's values against the range its manifest declares: a gather in
    the program would clamp an id outside it silently."""
    lo, hi = spec.range
    for at, (value,) in enumerate(struct.iter_unpack("=" + _STRUCT_CODES[spec.dtype], view.cast("B"))):
        if not lo <= value <= hi:
            raise InputError(f"{where} holds {value} (element {at}), outside its range [{lo}, {hi}]")


def _fetch(e, spec, buffer, want):
    dtype, shape = buffer.type()
    if (dtype.name, shape) != (spec.dtype, tuple(want)):
        raise PluginError(f"tlaloc_serve.Model.run: entry point '{e.name}' output '{spec.name}' came back "
                          f"{_spec_text(dtype.name, shape)}, the manifest says {_spec_text(spec.dtype, want)}")
    return Tensor(buffer.to_host(math.prod(shape) * dtype.itemsize), dtype.name, shape)
