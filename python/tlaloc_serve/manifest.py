"""manifest.json of an artifact (docs/SERVING.md), read with every field checked, and
the hashes that tie it to the files. The checks and wording follow the C++ loader
(src/serve/manifest.cpp, src/serve/model.cpp)."""

import hashlib
import json
import os
import stat
from collections import namedtuple

from .dtypes import BY_NAME
from .errors import ArtifactError
from .jsontext import nests_deeper

FORMAT = "tlaloc-artifact"
SCHEMA_VERSION = 3  # the newest: exports write 3 where an entry point is bounded, else 2; 1 and 2 are read too
WHO = "tlaloc_serve.Model.load"
MAX_DEPTH = 64  # a manifest nests five levels (src/serve/manifest.cpp, kMaxDepth)

# dtype: a name ("f32"); shape: a tuple (the bound on a bounded axis); range: (min, max) an integer
# input's values may take, or None; dims: per axis the bounded dimension it follows or "", or ()
TensorSpec = namedtuple("TensorSpec", "name dtype shape range dims", defaults=(None, ()))
# A bounded dimension: its name, bound and bucket sizes (ascending, the last the bound).
BoundedDim = namedtuple("BoundedDim", "name bound ladder")
# A bounded entry point's program for one bucket: a size per dimension.
Bucket = namedtuple("Bucket", "sizes program")
INTEGER_DTYPES = ("i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64")
HashedFile = namedtuple("HashedFile", "path sha256")  # path relative to the artifact
# program: a HashedFile (at the bounds for a bounded entry point); bounded: BoundedDims; buckets: the
# smaller buckets' programs, in the ladders' order (the first dimension's size changing slowest)
EntryPoint = namedtuple("EntryPoint", "name program weights inputs outputs bounded buckets", defaults=((), ()))
Manifest = namedtuple("Manifest", "version content_hash weights entries")


def bad(file, what):
    raise ArtifactError(f"{WHO}: {file}: {what}")


_KINDS = {
    "a string": lambda v: isinstance(v, str),
    "an integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "an array": lambda v: isinstance(v, list),
    "an object": lambda v: isinstance(v, dict),
}


def _field(obj, key, kind, file, where=""):
    """The member `key` of `obj`, which must exist and be of `kind` (a key of _KINDS)."""
    if not isinstance(obj, dict) or key not in obj:
        bad(file, f'{where}has no "{key}"')
    value = obj[key]
    if not _KINDS[kind](value):
        bad(file, f'{where}"{key}" is not {kind}')
    return value


def _specs(items, file, where):
    out = []
    for item in items:
        name = _field(item, "name", "a string", file, where)
        at = f"{where}tensor '{name}': "
        dtype = _field(item, "dtype", "a string", file, at)
        if dtype not in BY_NAME:
            bad(file, f'{at}unknown dtype "{dtype}"')
        shape = _field(item, "shape", "an array", file, at)
        if not all(_KINDS["an integer"](d) and d >= 0 for d in shape):
            bad(file, at + "shape holds a non-size")
        dims = ()
        if "dims" in item:
            dims = _field(item, "dims", "an array", file, at)
            if not all(isinstance(d, str) for d in dims):
                bad(file, at + '"dims" holds a non-string')
            if len(dims) != len(shape):
                bad(file, f'{at}"dims" has {len(dims)} axes, the shape {len(shape)}')
        out.append(TensorSpec(name, dtype, tuple(shape), _range(item, dtype, file, at), tuple(dims)))
    return out


def _size(v, file, what):
    if not (_KINDS["an integer"](v) and 0 <= v < 2**63):
        bad(file, what + " holds a non-size")
    return v


def _dim(d, file, where):
    """A bounded dimension's name, bound and ladder (ascending from 1, ending at the bound)."""
    name = _field(d, "name", "a string", file, where)
    at = f"{where}dimension '{name}': "
    bound = _size(_field(d, "bound", "an integer", file, at), file, at + "bound")
    ladder = tuple(_size(n, file, at + "ladder") for n in _field(d, "ladder", "an array", file, at))
    if any(n < 1 for n in ladder) or any(b <= a for a, b in zip(ladder, ladder[1:])):
        bad(file, at + "the ladder does not ascend strictly from 1")
    if not name or not ladder or ladder[-1] != bound:
        bad(file, at + "needs a name and a ladder ending at its bound")
    return BoundedDim(name, bound, ladder)


def all_buckets(dims):
    """Every bucket of the dimensions, the first one's size changing slowest; the last is at the bounds."""
    out = [()]
    for d in dims:
        out = [b + (n,) for b in out for n in d.ladder]
    return out


def _bounded(e, version, inputs, outputs, file, where):
    """A version 3 entry's "bounded" dimensions and "buckets" (every bucket but the one at
    the bounds, which is "program"), with each spec's dims checked against them."""
    has = "bounded" in e or "buckets" in e
    if has and version < 3:
        bad(file, where + '"bounded" needs schema version 3')
    dims = []
    for d in (_field(e, "bounded", "an array", file, where) if has else []):
        dims.append(_dim(d, file, where))
        if any(x.name == dims[-1].name for x in dims[:-1]):
            bad(file, f"{where}dimension '{dims[-1].name}' is listed twice")
    bounds = {d.name: d.bound for d in dims}
    for s in inputs + outputs:
        for a, n in enumerate(s.dims):
            if n and bounds.get(n) != s.shape[a]:
                bad(file, f"{where}tensor '{s.name}' axis {a} names '{n}', which is not a bounded dimension of "
                          f"size {s.shape[a]}")
    if not dims:
        return (), ()
    want = all_buckets(dims)[:-1]
    items = _field(e, "buckets", "an array", file, where)
    if len(items) != len(want):
        bad(file, f"{where}lists {len(items)} bucket programs, its ladders make {len(want)}")
    buckets = []
    for i, (item, w) in enumerate(zip(items, want)):
        program = _hashed(item, "program", file, where)
        sizes = tuple(_size(n, file, where + "bucket sizes") for n in _field(item, "sizes", "an array", file, where))
        if sizes != w:
            bad(file, f"{where}bucket {i} is [{', '.join(map(str, sizes))}], its ladders say "
                      f"[{', '.join(map(str, w))}]")
        buckets.append(Bucket(sizes, program))
    return tuple(dims), tuple(buckets)


def _range(item, dtype, file, at):
    """An input's optional "range": [min, max], as the C++ loader reads it."""
    if "range" not in item:
        return None
    r = item["range"]
    if not (isinstance(r, list) and len(r) == 2 and all(_KINDS["an integer"](v) and -2**63 <= v < 2**63 for v in r)):
        bad(file, at + '"range" is not [min, max] (two 64-bit integers)')
    if r[0] > r[1] or dtype not in INTEGER_DTYPES:
        bad(file, f'{at}"range" [{r[0]}, {r[1]}] needs min <= max and an integer tensor')
    return (r[0], r[1])


def _hashed(obj, path_key, file, where):
    path = _field(obj, path_key, "a string", file, where)
    digest = _field(obj, "sha256", "a string", file, where)
    if not path or os.path.isabs(path) or ".." in path:
        bad(file, f'{where}path "{path}" leaves the artifact directory')
    # A NUL would end the name the system opens ("weights.safetensors\u0000junk").
    if any(ord(c) < 0x20 or ord(c) == 0x7F for c in path):
        bad(file, f"{where}path {json.dumps(path)} holds a control character")
    if len(digest) != 64 or any(c not in "0123456789abcdef" for c in digest):
        bad(file, f'{where}"{digest}" is not a hex SHA-256')
    return HashedFile(path, digest)


def _strings_are_unicode(value):
    """Whether every string in the parsed JSON is Unicode text: json.loads takes a lone
    surrogate escape ("\\ud800"), which the C++ loader refuses as invalid JSON."""
    if isinstance(value, str):
        return not any(0xD800 <= ord(c) <= 0xDFFF for c in value)
    if isinstance(value, dict):
        return all(_strings_are_unicode(k) and _strings_are_unicode(v) for k, v in value.items())
    if isinstance(value, list):
        return all(_strings_are_unicode(v) for v in value)
    return True


def parse(text, file):
    """The manifest in `text` (bytes or str); `file` names it in errors. The rules are
    the C++ loader's: no NUL byte, no lone surrogate, no nesting deeper than MAX_DEPTH."""
    nul = text.find(b"\0" if isinstance(text, bytes) else "\0")
    if nul >= 0:
        bad(file, f"not valid JSON (a NUL byte at offset {nul})")
    if nests_deeper(text, MAX_DEPTH):
        bad(file, f"not valid JSON (it nests deeper than {MAX_DEPTH} levels)")
    try:
        j = json.loads(text)
    except (ValueError, UnicodeDecodeError) as e:
        bad(file, f"not valid JSON ({e})")
    if not _strings_are_unicode(j):
        bad(file, "not valid JSON (a lone surrogate escape)")
    if _field(j, "format", "a string", file) != FORMAT:
        bad(file, f'"format" is not "{FORMAT}"')
    version = _field(j, "schema_version", "an integer", file)
    if version not in (1, 2, SCHEMA_VERSION):
        bad(file, f"unknown schema version {version} (this build reads versions 1 to {SCHEMA_VERSION})")
    content_hash = _field(j, "content_hash", "a string", file)
    weights = _hashed(_field(j, "weights", "an object", file), "file", file, "weights: ")
    entries = []
    for e in _field(j, "entry_points", "an array", file):
        name = _field(e, "name", "a string", file, "entry point: ")
        where = f"entry point '{name}': "
        program = _hashed(e, "program", file, where)
        names = _field(e, "weights", "an array", file, where)
        if not all(isinstance(w, str) for w in names):
            bad(file, where + '"weights" holds a non-string')
        inputs = _specs(_field(e, "inputs", "an array", file, where), file, where)
        outputs = _specs(_field(e, "outputs", "an array", file, where), file, where)
        bounded, buckets = _bounded(e, version, inputs, outputs, file, where)
        if any(x.name == name for x in entries):
            bad(file, f"entry point '{name}' is listed twice")
        entries.append(EntryPoint(name, program, tuple(names), tuple(inputs), tuple(outputs), bounded, buckets))
    return Manifest(version, content_hash, weights, tuple(entries))


def content_hash(m):
    """The SHA-256 that names what the artifact runs (docs/SERVING.md), as the C++
    loader computes it: version 2 covers the files' paths and hashes, each entry
    point's name, bound weights and signature; version 3 adds the bounded dimensions,
    the tensors' dims and the bucket programs; version 1 covered the files only."""
    if m.version == 1:
        lines = f"{m.weights.path} {m.weights.sha256}\n"
        lines += "".join(f"{e.program.path} {e.program.sha256}\n" for e in m.entries)
        return hashlib.sha256(lines.encode("utf-8")).hexdigest()
    fields = [m.weights.path, m.weights.sha256]
    for e in m.entries:
        fields += [e.name, e.program.path, e.program.sha256, str(len(e.weights)), *e.weights]
        for specs in (e.inputs, e.outputs):
            fields.append(str(len(specs)))
            for s in specs:
                fields += [s.name, s.dtype, ",".join(str(d) for d in s.shape),
                           f"{s.range[0]},{s.range[1]}" if s.range else ""]
        if m.version >= 3:
            fields += [",".join(s.dims) for s in e.inputs + e.outputs]
            fields.append(str(len(e.bounded)))
            for d in e.bounded:
                fields += [d.name, str(d.bound), ",".join(str(n) for n in d.ladder)]
            fields.append(str(len(e.buckets)))
            for b in e.buckets:
                fields += [",".join(str(n) for n in b.sizes), b.program.path, b.program.sha256]
    # Each field is its length in bytes, ':', its bytes and a newline.
    text = f"tlaloc-artifact content {m.version}\n".encode()
    for f in fields:
        data = f.encode("utf-8")
        text += str(len(data)).encode() + b":" + data + b"\n"
    return hashlib.sha256(text).hexdigest()


def read_file(path, root):
    """A file of the artifact in `root`. Only a regular file inside the directory is
    read: a directory or a FIFO (whose open waits for a writer) is refused, and so is a
    link leading out of the directory."""
    try:
        status = os.stat(path)
    except FileNotFoundError:
        bad(path, "missing")
    except OSError as e:
        bad(path, f"cannot be read ({e.strerror})")
    if not stat.S_ISREG(status.st_mode):
        bad(path, "is not a regular file")
    inside = os.path.relpath(os.path.realpath(path), os.path.realpath(root))
    if inside == os.curdir or inside.split(os.sep)[0] == os.pardir:
        bad(path, "is a link leading out of the artifact directory")
    try:
        with open(path, "rb") as f:
            return f.read()
    except OSError as e:
        bad(path, f"cannot be read ({e.strerror})")


def check_hash(path, data, expected):
    got = hashlib.sha256(data).hexdigest()
    if got != expected:
        bad(path, f"SHA-256 {got} does not match the manifest's {expected}")


def load(directory):
    """The manifest of the artifact in `directory`, its content hash checked."""
    file = os.path.join(directory, "manifest.json")
    m = parse(read_file(file, directory), file)
    if content_hash(m) != m.content_hash:
        bad(file, "the content hash does not match what the manifest lists (files, bindings, signatures)")
    return m
