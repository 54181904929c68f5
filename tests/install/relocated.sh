#!/usr/bin/env bash
# relocated.sh BUILD_DIR PREFIX LIBDIR PYTHONDIR WORK SOURCE_DIR FIXTURE CXX CC LINK_FLAGS WITH_PYTHON
# An installed Tlaloc, copied and moved to another directory, still works: no
# installed file names the build tree or the first prefix; `tlaloc run` runs a
# program; a C++ program and a C program (linked with -ltlaloc_serve alone, through
# pkg-config) serve an artifact on the CPU plugin named by its short name; the
# Python package does the same from the prefix, and `pip install` of python/ works
# offline. Outputs must equal the eager model's bits (serve_fixture's expected.bin).
set -euo pipefail
build_dir=$1 prefix=$2 libdir=$3 pythondir=$4 work=$5 src=$6 fixture=$7 cxx=$8 cc=$9 link_flags=${10} with_python=${11}
rm -rf "$work"
mkdir -p "$work"
cp -a "$prefix" "$work/first"
mv "$work/first" "$work/moved"
moved=$work/moved

step() { echo "== $*"; }
same() {
  cmp "$1" "$2" || { echo "FAIL: $1 differs from the eager model's output" >&2; exit 1; }
}

step "no installed file names the build tree or the first prefix (debug information aside)"
stripped=$work/stripped
cp -a "$moved" "$stripped"
find "$stripped" -type f -exec sh -c 'head -c 4 "$1" | grep -q ELF && objcopy --strip-debug "$1"' _ {} \;
if grep -r -l -F -e "$build_dir" -e "$prefix" "$stripped"; then
  echo "FAIL: the files above hold a path of the build tree" >&2
  exit 1
fi

step "bin/tlaloc run"
"$moved/bin/tlaloc" run "$src/tests/stablehlo/constant.mlir" --split-input-file

artifact=$work/artifact
"$fixture" "$artifact"

step "a C++ program on plugin 'tlaloc_cpu'"
cmake -S "$src/tests/install/serve_consumer" -B "$work/cxx" -G Ninja -DCMAKE_CXX_COMPILER="$cxx" \
      -DCMAKE_PREFIX_PATH="$moved" "-DCMAKE_EXE_LINKER_FLAGS=$link_flags" >/dev/null
cmake --build "$work/cxx" >/dev/null
"$work/cxx/serve_consumer" "$artifact" "$work/cxx.bin"
same "$work/cxx.bin" "$artifact/expected.bin"

step "a C program linked with -ltlaloc_serve alone (pkg-config), on plugin 'tlaloc_cpu'"
export PKG_CONFIG_PATH=$moved/$libdir/pkgconfig
read -r -a cflags <<<"$(pkg-config --cflags tlaloc_serve)"
read -r -a libs <<<"$(pkg-config --libs tlaloc_serve)"
"$cc" -std=c11 -Wall -Werror -c "$src/examples/c-inference/main.c" "${cflags[@]}" -o "$work/c-inference.o"
# Under the sanitizers the C++ compiler links, for their runtime.
linker=$cc
[[ -n $link_flags ]] && linker=$cxx
"$linker" "$work/c-inference.o" "${libs[@]}" -Wl,-rpath,"$moved/$libdir" $link_flags -o "$work/c-inference"
"$work/c-inference" --plugin tlaloc_cpu "$artifact" logits "$work/c.bin" "$artifact/x.bin"
same "$work/c.bin" "$artifact/expected.bin"

[[ $with_python == 1 ]] || exit 0
run_py='import sys, tlaloc_serve
m = tlaloc_serve.Model.load(sys.argv[1], sys.argv[2])
out = m.run("logits", [open(sys.argv[1] + "/x.bin", "rb").read()])[0].data
open(sys.argv[3], "wb").write(out)
print("ran on", m.platform_name)'

step "python3 with the prefix's package, on plugin 'tlaloc_cpu'"
PYTHONPATH=$moved/$pythondir PYTHONDONTWRITEBYTECODE=1 \
  /usr/bin/python3 -c "$run_py" "$artifact" tlaloc_cpu "$work/python.bin"
same "$work/python.bin" "$artifact/expected.bin"

step "pip install --no-build-isolation of python/, offline, into a virtual environment"
cp -r "$src/python" "$work/python-src"
/usr/bin/python3 -m venv --system-site-packages "$work/venv"
"$work/venv/bin/pip" install --quiet --no-build-isolation --no-index --no-deps "$work/python-src"
(cd "$work" && "$work/venv/bin/python" -c "$run_py" "$artifact" "$moved/$libdir/tlaloc/libtlaloc_pjrt_cpu.so" "$work/pip.bin")
same "$work/pip.bin" "$artifact/expected.bin"
echo "all steps passed"
