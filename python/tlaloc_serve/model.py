"""Model: an artifact loaded onto a PJRT device, with every check of the C++ loader
(src/serve/model.cpp) done before anything runs, and runs whose inputs are checked
against the manifest before they reach the plugin."""

import array
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
        self._executables, self._weights = executables, weights

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
        texts = {}
        for e in m.entries:
            pfile = os.path.join(directory, e.program.path)
            texts[e.name] = mf.read_file(pfile, directory)
            mf.check_hash(pfile, texts[e.name], e.program.sha256)
            for w in e.weights:
                if w not in weights:
                    mf.bad(wfile, f"weight '{w}' of entry point '{e.name}' is not in the file")
            _check_signature(pfile, e, texts[e.name], weights)
        plugin = Plugin(plugin_path if plugin_path is not None else os.environ.get(ENV, ""))
        for target, handler in (ffi_handlers or {}).items():
            plugin.register_ffi_handler(target, handler)
        client = Client(plugin, client_options)
        model = cls(client, m, {}, {})
        try:
            for e in m.entries:
                exe = client.compile(texts[e.name])
                model._executables[e.name] = exe
                _check_compiled(os.path.join(directory, e.program.path), e, exe)
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
        for b in self._weights.values():
            b.close()
        for x in self._executables.values():
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
        data = [_checked_input(e, spec, x) for spec, x in zip(e.inputs, _in_order(e, inputs))]
        device, outputs = [], []
        try:
            device = [self._client.to_device(d, BY_NAME[s.dtype], s.shape) for d, s in zip(data, e.inputs)]
            args = [self._weights[w] for w in e.weights] + device
            donated = [False] * len(e.weights) + [True] * len(device)
            outputs = self._executables[e.name].run(args, donated, len(e.outputs))
            return [_fetch(e, spec, b) for spec, b in zip(e.outputs, outputs)]
        finally:
            for b in outputs + device:
                b.close()


def _check_signature(file, e, text, weights):
    """The program must take the weights, then the inputs, and give the outputs, as the
    manifest says."""
    try:
        sig = program.signature(text.decode("utf-8"))
    except UnicodeDecodeError:
        sig = None
    if sig is None:
        mf.bad(file, "no entry function whose signature can be read (@main, or the one public function)")
    want_in = [(weights[w].dtype, weights[w].shape) for w in e.weights] + [(s.dtype, s.shape) for s in e.inputs]
    want_out = [(s.dtype, s.shape) for s in e.outputs]
    if sig != (want_in, want_out):
        mf.bad(file, f"the program's signature is not the manifest's for entry point '{e.name}' (weights, then "
                     f"inputs {len(e.inputs)}, giving outputs {len(e.outputs)})")


def _check_compiled(file, e, exe):
    """What the plugin compiled must give the manifest's outputs."""
    got = exe.output_types()
    want = [(BY_NAME[s.dtype], s.shape) for s in e.outputs]
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


def _fetch(e, spec, buffer):
    dtype, shape = buffer.type()
    if (dtype.name, shape) != (spec.dtype, spec.shape):
        raise PluginError(f"tlaloc_serve.Model.run: entry point '{e.name}' output '{spec.name}' came back "
                          f"{_spec_text(dtype.name, shape)}, the manifest says {_spec_text(spec.dtype, spec.shape)}")
    return Tensor(buffer.to_host(math.prod(shape) * dtype.itemsize), dtype.name, shape)
