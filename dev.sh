#!/usr/bin/env bash
# Set-up, build and run for a fresh Debian 12 machine (see README.md).
#   ./dev.sh demo    install what is missing, build, install into build/release/installed, build
#                    and run the quickstart against it (its gradient written by tlaloc-grad), then train
#                    the small language model (examples/lm) and generate a line with it
#   ./dev.sh test    install what is missing, build, run the whole test suite (GCC release,
#                    then Clang with ASan and UBSan, then the threads' tests under TSan)
#   ./dev.sh bench   build and run the benchmarks against OpenBLAS and PyTorch
# Every step is idempotent: a second run installs nothing and rebuilds only what changed.
set -euo pipefail
cd "$(dirname "$0")"

# libclang-14-dev and libclang-cpp14-dev: tlaloc-grad, the build step that writes gradients as C++.
# libblis-serial-dev: matrix products; libopenblas-dev: the benchmarks and a test run beside a program's own BLAS.
BUILD_PACKAGES=(cmake ninja-build g++ clang-14 libclang-rt-14-dev ccache pkg-config libblis-serial-dev libopenblas-dev
                libfmt-dev nlohmann-json3-dev libssl-dev libgtest-dev libgmock-dev libbenchmark-dev libclang-14-dev
                libclang-cpp14-dev)
# The oracle lane compares with PyTorch, run by Debian's own interpreter.
ORACLE_PACKAGES=(python3 python3-torch python3-numpy)
# ctest stablehlo.mlir_opt_generic checks the generic output with MLIR's own parser;
# install.relocated runs `pip install` of python/ offline into a virtual environment;
# with OpenMPI, the build adds Tlaloc's MPI transport and distributed.* runs under mpirun.
TEST_PACKAGES=(mlir-16-tools python3-venv python3-setuptools python3-wheel libopenmpi-dev openmpi-bin)

install_missing() {
  local missing=()
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  if ((${#missing[@]})); then
    echo "== installing: ${missing[*]}"
    local sudo=""
    [[ $(id -u) -ne 0 ]] && sudo="sudo"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  fi
}

# The digits example (examples/digits) takes its data set from Debian's python3-sklearn
# with `apt-get download`, which needs apt's package lists: where they were cleaned away
# (container images do that), fetch them once.
apt_lists_know() {
  apt-cache show "$1" >/dev/null 2>&1 && return
  echo "== apt has no lists naming $1: apt-get update"
  local sudo=""
  [[ $(id -u) -ne 0 ]] && sudo="sudo"
  $sudo apt-get update -qq
}

# ccache keys on paths relative to the clone, so two clones (a CI checkout beside a
# working one) share compiled objects; debug info then names the clone that compiled
# an object first.
export CCACHE_BASEDIR="$PWD" CCACHE_NOHASHDIR=true

build() {
  local preset=$1
  shift
  cmake --preset "$preset" >/dev/null
  cmake --build --preset "$preset" -- -j"$(nproc)" "$@"
}

case "${1:-}" in
  demo)
    install_missing "${BUILD_PACKAGES[@]}"
    build release tlaloc tlaloc_serve tlaloc_grad lm
    # The quickstart is a project of its own against the installed package, built with
    # tlaloc-grad (examples/quickstart/CMakeLists.txt), as a user's project would be.
    cmake --install build/release --prefix build/release/installed >/dev/null
    cmake -S examples/quickstart -B build/release/quickstart -G Ninja \
          -DCMAKE_PREFIX_PATH="$PWD/build/release/installed" >/dev/null
    cmake --build build/release/quickstart
    ./build/release/quickstart/quickstart
    echo "== examples/lm: a byte-level language model, trained, exported, generating"
    ./build/release/examples/lm --out build/release/lm-demo
    ;;
  test)
    install_missing "${BUILD_PACKAGES[@]}" "${ORACLE_PACKAGES[@]}" "${TEST_PACKAGES[@]}"
    apt_lists_know python3-sklearn
    build release
    ctest --preset release -j"$(nproc)"
    # The same suite built by Clang under AddressSanitizer and UndefinedBehaviorSanitizer.
    build asan
    ctest --preset asan -j"$(nproc)"
    # What threads share (sessions, served models, the C API, the transforms' caches)
    # under ThreadSanitizer: its own small test program (tests/tsan).
    build tsan tlaloc_tsan_tests tsan_serve_fixture tsan_c_api_threads
    ctest --preset tsan -j"$(nproc)"
    ;;
  bench)
    install_missing "${BUILD_PACKAGES[@]}" "${ORACLE_PACKAGES[@]}"
    build release
    bench/run.sh build/release
    ;;
  *)
    echo "usage: $0 demo|test|bench" >&2
    exit 2
    ;;
esac
