#!/usr/bin/env bash
# deb.sh BUILD_DIR WORK SOURCE_DIR FIXTURE CXX CC
# Builds the Debian package with cpack, checks what it declares, unpacks it, and runs
# relocated.sh on what it holds under /usr: the CLI, a C++ and a C program on the CPU
# plugin by its short name, the Python package.
set -euo pipefail
build_dir=$1 work=$2 src=$3 fixture=$4 cxx=$5 cc=$6
rm -rf "$work"
mkdir -p "$work"
cpack --config "$build_dir/CPackConfig.cmake" -G DEB -B "$work/pkg" >/dev/null
deb=$(ls "$work"/pkg/tlaloc_*.deb)
echo "== $(basename "$deb"): $(du -k "$deb" | cut -f1) KiB"
dpkg-deb --field "$deb" Package Version Architecture Depends
dpkg-deb --field "$deb" Depends | grep -q "libblis4" || { echo "FAIL: no BLIS dependency" >&2; exit 1; }
dpkg-deb -x "$deb" "$work/unpacked"
for f in usr/bin/tlaloc usr/bin/tlaloc-grad usr/lib/libtlaloc.so usr/lib/libtlaloc_serve.so \
         usr/lib/tlaloc/libtlaloc_pjrt_cpu.so usr/lib/cmake/Tlaloc/TlalocConfig.cmake usr/lib/pkgconfig/tlaloc.pc \
         usr/lib/python3/dist-packages/tlaloc_serve/__init__.py usr/include/tlaloc/tlaloc.hpp; do
  [[ -e $work/unpacked/$f ]] || { echo "FAIL: the package lacks /$f" >&2; exit 1; }
done
"$src/tests/install/relocated.sh" "$build_dir" "$work/unpacked/usr" lib lib/python3/dist-packages "$work/use" "$src" \
  "$fixture" "$cxx" "$cc" "" 1
