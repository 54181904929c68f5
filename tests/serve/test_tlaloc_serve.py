"""tlaloc_serve (python/tlaloc_serve) on the fixture artifact and Tlaloc's CPU plugin.

Run by Debian's /usr/bin/python3 with the standard library's unittest (ctest
serve.python). The environment names what CMake built:
  TLALOC_SERVE_FIXTURE  the serve_fixture program (exports the MLP, writes x.bin and
                        expected.bin, the eager model's output)
  TLALOC_SERVE_PLUGIN   libtlaloc_pjrt_cpu.so
  TLALOC_SERVE_WORK     a scratch directory
  TLALOC_SOURCE_DIR     the source tree (the C declaration of the PJRT ABI is read from it)
"""

import array
import ctypes
import hashlib
import json
import os
import re
import shutil
import struct
import subprocess
import sys
import unittest

import _ctypes

from tlaloc_serve import ArtifactError, InputError, Model, PluginError, Tensor, TlalocServeError
from tlaloc_serve import pjrt_abi

FIXTURE = os.environ.get("TLALOC_SERVE_FIXTURE", "")
PLUGIN = os.environ.get("TLALOC_SERVE_PLUGIN", "")
WORK = os.environ.get("TLALOC_SERVE_WORK", "")
SOURCE = os.environ.get("TLALOC_SOURCE_DIR", "")
ARTIFACT = os.path.join(WORK, "artifact")
BOUNDED = os.path.join(WORK, "bounded")


def setUpModule():
    shutil.rmtree(WORK, ignore_errors=True)
    os.makedirs(WORK)
    subprocess.run([FIXTURE, ARTIFACT], check=True)
    subprocess.run([FIXTURE, BOUNDED, "bounded"], check=True)


def read(path):
    with open(path, "rb") as f:
        return f.read()


def write(path, data):
    with open(path, "wb") as f:
        f.write(data)


def sha256(data):
    return hashlib.sha256(data).hexdigest()


class Artifact:
    """A copy of the fixture artifact to damage; rehash() makes the manifest list the
    files' present hashes, so that checks after the hash checks are reached."""

    def __init__(self, name):
        self.dir = os.path.join(WORK, name)
        shutil.rmtree(self.dir, ignore_errors=True)
        shutil.copytree(ARTIFACT, self.dir)

    def path(self, rel):
        return os.path.join(self.dir, rel)

    def manifest(self):
        return json.loads(read(self.path("manifest.json")))

    def set_manifest(self, m):
        write(self.path("manifest.json"), json.dumps(m).encode())

    def rehash(self):
        m = self.manifest()
        m["weights"]["sha256"] = sha256(read(self.path(m["weights"]["file"])))
        for e in m["entry_points"]:
            e["sha256"] = sha256(read(self.path(e["program"])))
        m["content_hash"] = content_hash_v2(m)
        self.set_manifest(m)


def content_hash_v2(m):
    """docs/SERVING.md's rule, written from the manifest's JSON: each field as its
    UTF-8 length, ':', its bytes and a newline."""
    fields = [m["weights"]["file"], m["weights"]["sha256"]]
    for e in m["entry_points"]:
        fields += [e["name"], e["program"], e["sha256"], str(len(e["weights"]))] + e["weights"]
        for specs in (e["inputs"], e["outputs"]):
            fields.append(str(len(specs)))
            for s in specs:
                r = s.get("range")
                fields += [s["name"], s["dtype"], ",".join(map(str, s["shape"])), f"{r[0]},{r[1]}" if r else ""]
    text = b"tlaloc-artifact content 2\n" + b"".join(b"%d:%s\n" % (len(f.encode()), f.encode()) for f in fields)
    return sha256(text)


class Serving(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.model = Model.load(ARTIFACT, plugin_path=PLUGIN)
        cls.x = read(os.path.join(ARTIFACT, "x.bin"))
        cls.expected = read(os.path.join(ARTIFACT, "expected.bin"))

    @classmethod
    def tearDownClass(cls):
        cls.model.close()

    def test_output_equals_the_eager_models_bytes(self):
        (y,) = self.model.run("logits", [self.x])
        self.assertEqual((y.dtype, y.shape), ("f32", (3, 4)))
        self.assertEqual(y.data, self.expected)

    def test_every_input_kind_gives_the_same_bytes(self):
        xs = array.array("f")
        xs.frombytes(self.x)
        kinds = [bytearray(self.x), memoryview(self.x), xs, memoryview(xs), Tensor(self.x, "f32", (3, 6)),
                 memoryview(bytearray(self.x)).cast("f", (3, 6))]
        for x in kinds:
            with self.subTest(kind=type(x).__name__):
                self.assertEqual(self.model.run("logits", [x])[0].data, self.expected)
        self.assertEqual(self.model.run("logits", {"x": xs})[0].data, self.expected)

    def test_outputs_as_array(self):
        (y,) = self.model.run("logits", [self.x])
        want = array.array("f")
        want.frombytes(self.expected)
        self.assertEqual(y.to_array(), want)
        self.assertEqual(y.to_array().typecode, "f")

    def test_weights_stay_on_the_device_across_runs(self):
        # Inputs are donated to the plugin, weights must not be: a second and third run
        # would fail on deleted buffers.
        for _ in range(3):
            self.assertEqual(self.model.run("logits", [self.x])[0].data, self.expected)

    def test_values_outside_an_inputs_range(self):
        # "row" takes elements of a bias at indices declared to lie in [0, 15]; the C++
        # loader refuses the same (Artifact.RefusesValuesOutsideAnInputsRange).
        self.assertEqual(self.model.entry_point("row").inputs[0].range, (0, 15))
        (y,) = self.model.run("row", [array.array("i", [3, 15])])
        self.assertEqual(y.data, read(os.path.join(ARTIFACT, "row_expected.bin")))
        for bad, value in (([3, 16], 16), ([-1, 0], -1)):
            with self.subTest(index=bad), self.assertRaisesRegex(
                    InputError, f"entry point 'row' input 'index' holds {value} \\(element \\d\\), outside its "
                                r"range \[0, 15\]"):
                self.model.run("row", [array.array("i", bad)])

    def test_entry_points_and_manifest(self):
        self.assertEqual(self.model.entry_points(), ["logits", "row"])
        e = self.model.entry_point("logits")
        self.assertEqual([(s.name, s.dtype, s.shape) for s in e.inputs], [("x", "f32", (3, 6))])
        self.assertEqual(self.model.content_hash, json.loads(read(os.path.join(ARTIFACT, "manifest.json")))
                         ["content_hash"])
        self.assertEqual(self.model.platform_name, "tlaloc_cpu")

    def test_plugin_path_from_the_environment(self):
        env = dict(os.environ, TLALOC_PJRT_PLUGIN_PATH=PLUGIN)
        script = ("import sys, tlaloc_serve\n"
                  "m = tlaloc_serve.Model.load(sys.argv[1])\n"
                  "sys.stdout.buffer.write(m.run('logits', [open(sys.argv[2], 'rb').read()])[0].data)\n")
        out = subprocess.run([sys.executable, "-c", script, ARTIFACT, os.path.join(ARTIFACT, "x.bin")], env=env,
                             check=True, capture_output=True).stdout
        self.assertEqual(out, self.expected)

    def test_imports_only_the_standard_library(self):
        # Modules new after importing tlaloc_serve and running a model must be the
        # standard library's or tlaloc_serve's own; numpy, torch and jax never appear.
        script = ("import json, sys\n"
                  "before = set(sys.modules)\n"
                  "import tlaloc_serve\n"
                  "m = tlaloc_serve.Model.load(sys.argv[1], plugin_path=sys.argv[2])\n"
                  "y = m.run('logits', [open(sys.argv[3], 'rb').read()])[0].to_array()\n"
                  "print(json.dumps({'new': sorted(set(sys.modules) - before), 'all': sorted(sys.modules)}))\n")
        out = subprocess.run([sys.executable, "-c", script, ARTIFACT, PLUGIN, os.path.join(ARTIFACT, "x.bin")],
                             check=True, capture_output=True, text=True).stdout
        modules = json.loads(out)
        tops = {name.split(".")[0] for name in modules["new"]}
        self.assertIn("tlaloc_serve", tops)
        self.assertIn("ctypes", tops)
        self.assertEqual(sorted(t for t in tops if t not in sys.stdlib_module_names and t != "tlaloc_serve"), [])
        for banned in ("numpy", "torch", "jax", "jaxlib"):
            self.assertNotIn(banned, {name.split(".")[0] for name in modules["all"]})


def floats(data):
    return struct.unpack(f"={len(data) // 4}f", data)


class BoundedServing(unittest.TestCase):
    """The fixture's bounded artifact: "logits" (x f32[batch <= 8, 6]) and "mean" (the mean of
    the valid rows of x f32[seq <= 8, 6], buckets 2 and 8)."""

    @classmethod
    def setUpClass(cls):
        cls.model = Model.load(BOUNDED, plugin_path=PLUGIN)
        cls.x8 = read(os.path.join(BOUNDED, "x8.bin"))
        cls.expected8 = floats(read(os.path.join(BOUNDED, "expected8.bin")))

    @classmethod
    def tearDownClass(cls):
        cls.model.close()

    def assertClose(self, got, want):
        self.assertEqual(len(got), len(want))
        for i, (g, w) in enumerate(zip(got, want)):
            self.assertLessEqual(abs(g - w), 1e-5 * (1 + abs(w)), f"element {i}")

    def test_every_batch_gives_the_eager_models_rows(self):
        self.assertEqual(self.model.compiled_programs("logits"), 0)
        for n in range(1, 9):
            with self.subTest(batch=n):
                (y,) = self.model.run("logits", [Tensor(self.x8[:n * 24], "f32", (n, 6))])
                self.assertEqual((y.dtype, y.shape), ("f32", (n, 4)))
                self.assertClose(floats(y.data), self.expected8[:n * 4])
        self.assertEqual(self.model.compiled_programs("logits"), 4)  # buckets 1, 2, 4, 8
        # Bytes with one bounded axis: the batch follows from the length.
        (y,) = self.model.run("logits", [self.x8[:5 * 24]])
        self.assertEqual(y.shape, (5, 4))

    def test_the_mean_of_the_valid_rows(self):
        x = floats(self.x8)
        for n in range(1, 9):
            with self.subTest(seq=n):
                (y,) = self.model.run("mean", {"x": Tensor(self.x8[:n * 24], "f32", (n, 6))})
                self.assertEqual(y.shape, (6,))
                self.assertClose(floats(y.data), [sum(x[r * 6 + c] for r in range(n)) / n for c in range(6)])
        self.assertEqual(self.model.compiled_programs("mean"), 2)

    def test_sizes_the_dims_do_not_allow(self):
        with self.assertRaisesRegex(InputError, "entry point 'logits': dimension 'batch' is 9, over its bound 8"):
            self.model.run("logits", [Tensor(bytes(9 * 24), "f32", (9, 6))])
        with self.assertRaisesRegex(InputError, r"input 'x' is f32\[3, 5\], which does not fit its dims"):
            self.model.run("logits", [Tensor(bytes(3 * 20), "f32", (3, 5))])
        with self.assertRaisesRegex(InputError, "not a whole number of rows"):
            self.model.run("logits", [bytes(30)])
        with self.assertRaisesRegex(InputError, "input 'x' is f64, expected f32"):
            self.model.run("logits", [array.array("d", [0.0] * 6)])

    def test_manifest(self):
        e = self.model.entry_point("logits")
        self.assertEqual(e.bounded[0], ("batch", 8, (1, 2, 4, 8)))
        self.assertEqual((e.inputs[0].shape, e.inputs[0].dims), ((8, 6), ("batch", "")))
        self.assertEqual([b.sizes for b in e.buckets], [(1,), (2,), (4,)])
        self.assertEqual(json.loads(read(os.path.join(BOUNDED, "manifest.json")))["schema_version"], 3)

    def test_damaged_bucket_program(self):
        copy = os.path.join(WORK, "bounded-damaged")
        shutil.rmtree(copy, ignore_errors=True)
        shutil.copytree(BOUNDED, copy)
        with open(os.path.join(copy, "programs", "logits.batch-2.mlir"), "ab") as f:
            f.write(b"// edited\n")
        with self.assertRaisesRegex(ArtifactError, "logits.batch-2.mlir: SHA-256"):
            Model.load(copy, plugin_path=PLUGIN)


class BadArtifacts(unittest.TestCase):
    def refused(self, a, pattern, error=ArtifactError):
        with self.assertRaisesRegex(error, pattern) as caught:
            Model.load(a.dir, plugin_path=PLUGIN)
        self.assertIsInstance(caught.exception, TlalocServeError)
        return caught.exception

    def test_missing_manifest(self):
        a = Artifact("no_manifest")
        os.remove(a.path("manifest.json"))
        self.refused(a, re.escape(a.path("manifest.json")) + ": missing")

    def test_invalid_json(self):
        a = Artifact("invalid_json")
        write(a.path("manifest.json"), read(a.path("manifest.json"))[:-20])
        self.refused(a, "manifest.json: not valid JSON")

    def test_unknown_schema_version(self):
        a = Artifact("schema_4")
        m = a.manifest()
        m["schema_version"] = 4
        a.set_manifest(m)
        self.refused(a, r"manifest.json: unknown schema version 4 \(this build reads versions 1 to 3\)")

    def test_content_hash_covers_what_runs(self):
        # The C++ loader refuses the same edits (Artifact.ContentHashCoversWhatRuns).
        edits = {
            "swapped_weights": lambda e: e["weights"].reverse(),
            "renamed_input": lambda e: e["inputs"][0].update(name="y"),
            "renamed_entry": lambda e: e.update(name="probs"),
        }
        for name, edit in edits.items():
            with self.subTest(edit=name):
                a = Artifact(name)
                m = a.manifest()
                edit(m["entry_points"][0])
                a.set_manifest(m)
                self.refused(a, "manifest.json: the content hash does not match what the manifest lists")

    def test_reads_schema_version_1(self):
        # Version 1's content hash covers the files only.
        a = Artifact("schema_1")
        m = a.manifest()
        m["schema_version"] = 1
        lines = f"{m['weights']['file']} {m['weights']['sha256']}\n"
        lines += "".join(f"{e['program']} {e['sha256']}\n" for e in m["entry_points"])
        m["content_hash"] = sha256(lines.encode())
        a.set_manifest(m)
        with Model.load(a.dir, plugin_path=PLUGIN) as model:
            self.assertEqual(model.run("logits", [read(os.path.join(ARTIFACT, "x.bin"))])[0].data,
                             read(os.path.join(ARTIFACT, "expected.bin")))

    def test_missing_field(self):
        a = Artifact("no_entry_points")
        m = a.manifest()
        del m["entry_points"]
        a.set_manifest(m)
        self.refused(a, 'manifest.json: has no "entry_points"')

    def test_unknown_dtype(self):
        a = Artifact("unknown_dtype")
        m = a.manifest()
        m["entry_points"][0]["inputs"][0]["dtype"] = "f31"
        a.set_manifest(m)
        self.refused(a, "manifest.json: entry point 'logits': tensor 'x': unknown dtype \"f31\"")

    def test_path_leaving_the_directory(self):
        a = Artifact("escape")
        m = a.manifest()
        m["entry_points"][0]["program"] = "../logits.mlir"
        a.set_manifest(m)
        self.refused(a, 'path "../logits.mlir" leaves the artifact directory')

    def test_content_hash_mismatch(self):
        a = Artifact("content_hash")
        m = a.manifest()
        m["content_hash"] = "0" * 64
        a.set_manifest(m)
        self.refused(a, r"manifest.json: the content hash does not match what the manifest lists \(files, bindings, "
                     r"signatures\)")

    def test_program_hash_mismatch(self):
        a = Artifact("program_hash")
        with open(a.path("programs/logits.mlir"), "ab") as f:
            f.write(b" ")
        got = sha256(read(a.path("programs/logits.mlir")))
        self.refused(a, f"programs/logits.mlir: SHA-256 {got} does not match the manifest's [0-9a-f]{{64}}")

    def test_weights_hash_mismatch(self):
        a = Artifact("weights_hash")
        data = bytearray(read(a.path("weights.safetensors")))
        data[-1] ^= 1
        write(a.path("weights.safetensors"), bytes(data))
        self.refused(a, "weights.safetensors: SHA-256 [0-9a-f]{64} does not match the manifest's")

    def test_missing_program(self):
        a = Artifact("no_program")
        os.remove(a.path("programs/logits.mlir"))
        self.refused(a, "programs/logits.mlir: missing")

    # The C++ loader refuses the same manifests with the same words (artifact_test.cpp,
    # Artifact.ReadsOnlyWhatBothLoadersRead).
    def test_nul_byte_after_the_json(self):
        a = Artifact("nul_after_json")
        write(a.path("manifest.json"), read(a.path("manifest.json")) + b"\0junk")
        self.refused(a, "manifest.json: not valid JSON \\(a NUL byte at offset")

    def test_schema_version_wider_than_an_int(self):
        a = Artifact("schema_wide")
        m = a.manifest()
        m["schema_version"] = 4294967297
        a.set_manifest(m)
        self.refused(a, r"unknown schema version 4294967297 \(this build reads versions 1 to 3\)")

    def test_deep_manifest(self):
        a = Artifact("deep_manifest")
        write(a.path("manifest.json"), b"[" * 100000 + b"]" * 100000)
        self.refused(a, r"manifest.json: not valid JSON \(it nests deeper than 64 levels\)")

    def test_deep_safetensors_header(self):
        a = Artifact("deep_header")
        header = b'{"__metadata__": {"a": ' + b"[" * 100000 + b"]" * 100000 + b"}}"
        write(a.path("weights.safetensors"), struct.pack("<Q", len(header)) + header)
        a.rehash()
        self.refused(a, "weights.safetensors: the header nests deeper than 16 levels")

    def test_lone_surrogate_escape(self):
        a = Artifact("lone_surrogate")
        write(a.path("manifest.json"), read(a.path("manifest.json")).replace(b'"logits"', b'"\\ud800"', 1))
        self.refused(a, "manifest.json: not valid JSON")

    def test_path_holding_a_nul(self):
        a = Artifact("path_nul")
        m = a.manifest()
        m["weights"]["file"] += "\0junk"
        a.set_manifest(m)
        self.refused(a, r'path "weights.safetensors\\u0000junk" holds a control character')

    def test_manifest_that_is_a_directory(self):
        a = Artifact("manifest_directory")
        os.remove(a.path("manifest.json"))
        os.mkdir(a.path("manifest.json"))
        self.refused(a, "manifest.json: is not a regular file")

    def test_program_that_is_a_fifo(self):
        a = Artifact("program_fifo")
        os.remove(a.path("programs/logits.mlir"))
        os.mkfifo(a.path("programs/logits.mlir"))
        self.refused(a, "programs/logits.mlir: is not a regular file")

    def test_program_linked_from_outside(self):
        a = Artifact("program_link")
        outside = os.path.join(WORK, "program_link_outside.mlir")
        shutil.move(a.path("programs/logits.mlir"), outside)
        os.symlink(outside, a.path("programs/logits.mlir"))
        self.refused(a, "programs/logits.mlir: is a link leading out of the artifact directory")

    def test_missing_weights_file(self):
        a = Artifact("no_weights")
        os.remove(a.path("weights.safetensors"))
        self.refused(a, "weights.safetensors: missing")

    def test_manifest_names_a_tensor_the_weights_lack(self):
        a = Artifact("no_such_weight")
        m = a.manifest()
        m["entry_points"][0]["weights"][1] = "layers.9.bias"
        a.set_manifest(m)
        a.rehash()
        self.refused(a, "weights.safetensors: weight 'layers.9.bias' of entry point 'logits' is not in the file")

    def test_damaged_safetensors(self):
        a = Artifact("safetensors_gap")
        data = read(a.path("weights.safetensors"))
        write(a.path("weights.safetensors"), data + b"\0\0\0\0")  # trailing bytes after the last tensor
        a.rehash()
        self.refused(a, "weights.safetensors: 4 bytes after the last tensor's data")
        (n,) = struct.unpack_from("<Q", data)
        header = data[8:8 + n].replace(b'"data_offsets":[704,720]', b'"data_offsets":[704,721]')
        write(a.path("weights.safetensors"), data[:8] + header + data[8 + n:])
        a.rehash()
        self.refused(a, r"weights.safetensors: tensor 'layers.1.bias': F32\[4\] needs 16 bytes, data_offsets give 17")

    def test_signature_not_the_manifests(self):
        a = Artifact("signature")
        m = a.manifest()
        m["entry_points"][0]["inputs"][0]["shape"] = [3, 5]
        a.set_manifest(m)
        a.rehash()
        self.refused(a, "programs/logits.mlir: the program's signature is not the manifest's for entry point "
                        "'logits'")

    def test_program_the_plugin_refuses(self):
        a = Artifact("bad_program")
        text = read(a.path("programs/logits.mlir")).replace(b"stablehlo.tanh", b"stablehlo.no_such_op")
        write(a.path("programs/logits.mlir"), text)
        a.rehash()
        e = self.refused(a, "PJRT_Client_Compile failed in the PJRT plugin .*INVALID_ARGUMENT.*no_such_op",
                         error=PluginError)
        self.assertEqual((e.code, e.code_name), (3, "INVALID_ARGUMENT"))


class BadPlugins(unittest.TestCase):
    def refused(self, plugin_path, pattern, env=None):
        saved = os.environ.pop("TLALOC_PJRT_PLUGIN_PATH", None)
        try:
            with self.assertRaisesRegex(PluginError, pattern) as caught:
                Model.load(ARTIFACT, plugin_path=plugin_path)
        finally:
            if saved is not None:
                os.environ["TLALOC_PJRT_PLUGIN_PATH"] = saved
        self.assertIsNone(caught.exception.code)

    def test_client_options_reach_the_plugin(self):
        # Tlaloc's CPU plugin takes no client options and names the first it is given:
        # the name crossed the ABI in a PJRT_NamedValue of each kind.
        for name, value in (("allocator", "bfc"), ("memory_fraction", 0.5), ("preallocate", False),
                            ("collective_memory_size", 1 << 20)):
            with self.subTest(name=name), self.assertRaisesRegex(
                    PluginError, f"PJRT_Client_Create failed .*INVALID_ARGUMENT.*unknown option '{name}'") as c:
                Model.load(ARTIFACT, plugin_path=PLUGIN, client_options={name: value})
            self.assertEqual(c.exception.code, 3)
        with self.assertRaisesRegex(InputError, "client option 'fraction' is a list"):
            Model.load(ARTIFACT, plugin_path=PLUGIN, client_options={"fraction": [0.5]})

    def test_no_plugin_path(self):
        self.refused(None, r"no plugin path given \(set TLALOC_PJRT_PLUGIN_PATH or pass one\)")

    def test_short_name_outside_an_install(self):
        # The package runs from the source tree here (tests/install/relocated.sh loads
        # the plugin by its short name from an installed prefix).
        self.refused("tlaloc_cpu", "'tlaloc_cpu': this tlaloc_serve was not installed by `cmake --install`")

    def test_missing_file(self):
        self.refused(os.path.join(WORK, "nothing.so"), "nothing.so': no such file")

    def test_directory(self):
        self.refused(WORK, "is a directory, not a PJRT plugin shared library")

    def test_not_a_shared_library(self):
        self.refused(os.path.join(ARTIFACT, "manifest.json"), "cannot be loaded as a shared library")

    def test_shared_library_without_get_pjrt_api(self):
        self.refused(_ctypes.__file__, "is a shared library but not a PJRT plugin: it does not export GetPjrtApi")


class BadInputs(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.model = Model.load(ARTIFACT, plugin_path=PLUGIN)
        cls.x = read(os.path.join(ARTIFACT, "x.bin"))

    @classmethod
    def tearDownClass(cls):
        cls.model.close()

    def refused(self, inputs, pattern, entry="logits"):
        with self.assertRaisesRegex(InputError, pattern):
            self.model.run(entry, inputs)

    def test_wrong_dtype(self):
        self.refused([array.array("i", range(18))], r"input 'x' is i32, expected f32\[3, 6\]")
        self.refused([array.array("d", range(18))], r"input 'x' is f64, expected f32\[3, 6\]")
        self.refused([Tensor(self.x, "i32", (3, 6))], r"input 'x' is i32\[3, 6\], expected f32\[3, 6\]")

    def test_wrong_shape(self):
        self.refused([Tensor(self.x, "f32", (6, 3))], r"input 'x' is f32\[6, 3\], expected f32\[3, 6\]")

    def test_wrong_byte_length(self):
        self.refused([self.x[:-4]], r"input 'x' has 68 bytes, expected 72 \(f32\[3, 6\]\)")
        self.refused([array.array("f", range(19))], "has 76 bytes, expected 72")

    def test_not_contiguous(self):
        self.refused([memoryview(self.x + self.x)[::2]], "is not a C-contiguous buffer")

    def test_not_a_buffer(self):
        self.refused([list(range(18))], "is a list; pass bytes")

    def test_wrong_number_of_inputs(self):
        self.refused([self.x, self.x], "takes 1 inputs, got 2")
        self.refused({"y": self.x}, r"missing: \['x'\], unknown: \['y'\]")

    def test_unknown_entry_point(self):
        self.refused([self.x], r"no entry point 'nope' \(the artifact has logits, row\)", entry="nope")

    def test_the_model_still_runs_after_refusals(self):
        self.refused([self.x[:-4]], "has 68 bytes")
        self.assertEqual(self.model.run("logits", [self.x])[0].data, read(os.path.join(ARTIFACT, "expected.bin")))


class AbiLayout(unittest.TestCase):
    """The ctypes structs against Tlaloc's C declaration: the same fields in the same
    order with the same sizes, and the sizes and offsets the header asserts."""

    @classmethod
    def setUpClass(cls):
        base = os.path.join(SOURCE, "src", "runtime", "pjrt")
        cls.headers = {n: read(os.path.join(base, n)).decode() for n in os.listdir(base) if n.endswith(".h")}
        text = "\n".join(cls.headers.values())
        cls.text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
        cls.structs = {s.c_name: s for s in pjrt_abi.ARG_STRUCTS + (pjrt_abi.NamedValue,)}

    def c_fields(self, c_name):
        body = re.search(r"typedef struct %s \{(.*?)\} %s;" % (c_name, c_name), self.text, re.S).group(1)
        fields = []
        for decl in (d.strip() for d in body.split(";") if d.strip()):
            name = re.search(r"(\w+)\s*$", decl).group(1)
            pointer = "*" in decl or re.match(r"(const )?(size_t|int64_t|\w+_callback)\b", decl)
            size = 8 if pointer else 1 if decl.startswith("bool") else 4  # int and enums are 4
            fields.append((name, size))
        return fields

    def test_fields_match_the_c_declaration(self):
        for cls in pjrt_abi.ARG_STRUCTS:
            c_name = cls.c_name
            with self.subTest(struct=c_name):
                mine = [(name, getattr(cls, name).size) for name, _ in cls._fields_]
                self.assertEqual(mine, self.c_fields(c_name))

    def test_struct_size_is_the_headers_filled_size(self):
        layout = self.headers["pjrt_abi_layout.h"]
        defines = dict(re.findall(r"#define (TLP_\w+_SIZE)\s*\\?\s*TLP_FILLED_SIZE\((tlp_\w+),", self.text))
        checked = 0
        for macro, value in re.findall(r"(TLP_\w+_SIZE) == (\d+)", layout):
            if defines.get(macro) in self.structs:
                self.assertEqual(pjrt_abi.filled_size(self.structs[defines[macro]]), int(value), macro)
                checked += 1
        for c_name, field, value in re.findall(r"offsetof\((tlp_\w+), (\w+)\) == (\d+)", layout):
            if c_name in self.structs:
                self.assertEqual(getattr(self.structs[c_name], field).offset, int(value), f"{c_name}.{field}")
                checked += 1
        self.assertGreaterEqual(checked, 20)
        for macro, c_name in defines.items():  # the field struct_size ends at, for every struct
            if c_name in self.structs:
                last = re.search(r"TLP_FILLED_SIZE\(%s, (\w+)\)" % c_name, self.text).group(1)
                self.assertEqual(self.structs[c_name]._fields_[-1][0], last, macro)

    def test_named_value_union(self):
        # tlp_named_value holds a union the field comparison above does not parse; the
        # header asserts kind, int64_value and the size (checked above); every member
        # of the union starts where int64_value does.
        value = pjrt_abi.NamedValue
        for member in ("string_value", "int64_value", "int64_list_value", "float_value", "bool_value"):
            self.assertEqual(getattr(value, member).offset, 40, member)
        self.assertEqual((value.value_size.offset, pjrt_abi.filled_size(value)), (48, 56))

    def test_slots_follow_the_tables_order(self):
        table = self.headers["pjrt_abi_table.h"]
        numbered = {name: int(n) for n, name in re.findall(r"/\* (\d+)\s+(PJRT_\w+)", table)}
        for name, slot in pjrt_abi.SLOTS.items():
            self.assertEqual(numbered.get(name), slot, name)
            self.assertEqual(pjrt_abi.slot_offset(name), 40 + 8 * slot)
        self.assertEqual(ctypes.sizeof(pjrt_abi.ApiHead), 40)


if __name__ == "__main__":
    unittest.main()
