"""Serves examples/custom-kernel's artifact from bare Python (tlaloc_serve) through
Tlaloc's PJRT CPU plugin: the kernels' library is loaded with ctypes and its XLA FFI
handlers registered with the plugin's FFI extension. The predictions must be the C++
program's bits; without the handlers the plugin must refuse the program, naming the
kernel.

    python3 serve.py OUT_DIR PLUGIN KERNELS_LIBRARY
"""

import array
import ctypes
import os
import subprocess
import sys

import tlaloc_serve


def values(path):
    with open(path, encoding="ascii") as f:
        return array.array("f", (float(line) for line in f))


def main(out, plugin, library):
    kernels = ctypes.CDLL(os.path.abspath(library))
    handlers = {"example.rms_norm": kernels.rms_norm_fwd, "example.rms_norm_bwd": kernels.rms_norm_bwd}
    artifact = os.path.join(out, "artifact")
    x, want = values(os.path.join(out, "x.txt")), values(os.path.join(out, "y.txt"))
    with tlaloc_serve.Model.load(artifact, plugin, ffi_handlers=handlers) as model:
        got = model.run("predict", [x])[0].to_array()
    worst = max(abs(a - b) for a, b in zip(got, want))
    print(f"served from Python through the plugin: {len(got)} values, largest difference from C++ {worst}")
    if len(got) != len(want) or worst != 0:
        print("FAIL: Python's predictions differ from the C++ program's")
        return 1
    # A fresh process's plugin does not know the kernels until they are registered (this
    # process registered them above, so a child tries without).
    child = subprocess.run([sys.executable, __file__, out, plugin, library, "--without-handlers"], check=False)
    return child.returncode


def without_handlers(out, plugin):
    try:
        tlaloc_serve.Model.load(os.path.join(out, "artifact"), plugin).close()
    except tlaloc_serve.PluginError as e:
        print(f"without the handlers, refused as expected: {e}")
        return 0 if "custom_call @example.rms_norm" in str(e) else 1
    print("FAIL: the plugin compiled a program calling kernels nobody registered")
    return 1


if __name__ == "__main__":
    if sys.argv[4:5] == ["--without-handlers"]:
        sys.exit(without_handlers(*sys.argv[1:3]))
    sys.exit(main(*sys.argv[1:4]))
