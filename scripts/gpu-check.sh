#!/usr/bin/env bash
# The GPU check (docs/PJRT.md, docs/CAPABILITIES.md): on a machine with an NVIDIA GPU
# and JAX's CUDA plugin (jax-cuda13-pjrt) in python3's site-packages, builds
# tlaloc_gpu_check, makes the plugin's CUDA libraries loadable, runs a table of
# programs on CUDA and on the interpreter and compares them with per-op
# tolerances, trains the MLP with its state on the device and times it, times
# the same model written in JAX on the same GPU, and runs examples/custom-kernel's
# CUDA kernels (PTX from nvcc) against its host ones. Prints a short table last.
#
#   scripts/gpu-check.sh [BUILD_DIR]     (default: build/gpu-check)
#
# TLALOC_CUDA_PLUGIN: the plugin's path (default: found in $PYTHON's site-packages);
# PYTHON: the python with jax (default python3); GPU_CHECK_STEPS (default 200).
set -euo pipefail
start=$SECONDS
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build/gpu-check}
python=${PYTHON:-python3}
steps=${GPU_CHECK_STEPS:-200}
die() {
  echo "gpu-check: $*" >&2
  exit 1
}

# 1. The CUDA plugin of jax-cuda13-pjrt.
plugin=${TLALOC_CUDA_PLUGIN:-}
if [[ -z $plugin ]] && command -v "$python" >/dev/null; then
  plugin=$("$python" - <<'PY' || true
import os, site, sys
for d in site.getsitepackages() + [site.getusersitepackages()] + sys.path:
    p = os.path.join(d, "jax_plugins", "xla_cuda13", "xla_cuda_plugin.so")
    if os.path.isfile(p):
        print(p)
        break
PY
  )
fi
[[ -n $plugin && -f $plugin ]] ||
  die "no CUDA PJRT plugin at '${plugin:-(none found)}': jax_plugins/xla_cuda13/xla_cuda_plugin.so is in no" \
    "site-packages of $python (install jax-cuda13-pjrt) and TLALOC_CUDA_PLUGIN does not name one"
echo "gpu-check: plugin $plugin"

# 2. A GPU.
if command -v nvidia-smi >/dev/null; then
  nvidia-smi -L | grep -q GPU || die "nvidia-smi lists no GPU"
  nvidia-smi -L
elif ! ls /dev/nvidia[0-9]* >/dev/null 2>&1; then
  die "no NVIDIA GPU found (no nvidia-smi, no /dev/nvidia0)"
fi

# 3. The CUDA libraries the plugin links against, from NVIDIA's wheels beside it
# (nvidia/cu13/lib, nvidia/cudnn/lib, nvidia/nccl/lib, ...; docs/PJRT.md).
site=$(dirname "$(dirname "$(dirname "$plugin")")")
libs=$(find "$site/nvidia" -mindepth 2 -maxdepth 3 -type d -name lib 2>/dev/null | sort | paste -sd: || true)
[[ -n $libs ]] || echo "gpu-check: no nvidia/*/lib under $site: the CUDA libraries must be on the library path"
export LD_LIBRARY_PATH=${libs}${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}

# 4. Build what the check needs (the library and tlaloc_gpu_check only).
for tool in cmake g++; do command -v $tool >/dev/null || die "$tool is needed to build the check"; done
generator=()
command -v ninja >/dev/null && generator=(-G Ninja)
cmake -S "$root" -B "$build" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release -DTLALOC_BUILD_TESTS=OFF \
  -DTLALOC_BUILD_BENCH=OFF -DTLALOC_BUILD_EXAMPLES=ON >"$build.configure.log" 2>&1 ||
  die "configuring failed (missing OpenBLAS, fmt, nlohmann-json or OpenSSL?): see $build.configure.log"
timeout 300 cmake --build "$build" -j"$(nproc)" --target tlaloc_gpu_check >"$build.build.log" 2>&1 ||
  die "building tlaloc_gpu_check failed: see $build.build.log"
# The custom kernels' check exists when nvcc was found (examples/CMakeLists.txt).
kernels=0
timeout 120 cmake --build "$build" -j"$(nproc)" --target custom_kernel_gpu_check >>"$build.build.log" 2>&1 ||
  kernels=$?
echo "gpu-check: built in $((SECONDS - start)) s"

# 5. Tlaloc on CUDA against the interpreter, and the training loop timed.
out=$(mktemp)
trap 'rm -f "$out" "${kernel_out:-}"' EXIT
status=0
TLALOC_PJRT_PLUGIN_PATH=$plugin timeout 240 "$build/tlaloc_gpu_check" --steps "$steps" >"$out" 2>&1 || status=$?

# 6. The same model in JAX on the same GPU.
jax_line=$(timeout 120 "$python" "$root/tools/gpu_check/jax_mlp.py" "$steps" 2>&1 | tail -1) || true

# 7. examples/custom-kernel's CUDA kernels (the PTX launched through the plugin's FFI
# extension) against its host handlers.
kernel_out=$(mktemp)
if [[ $kernels -eq 0 ]]; then
  timeout 120 "$build/examples/custom_kernel_gpu_check" "$plugin" "$build/custom-kernel-gpu-check" \
    >"$kernel_out" 2>&1 || kernels=$?
else
  echo "custom_kernel_gpu_check was not built (no nvcc?): see $build.build.log" >"$kernel_out"
fi

echo
sed -n '1p' "$out"
echo
sed -n '/^check /,$p' "$out"
[[ $status -eq 0 ]] || { echo "(tlaloc_gpu_check exited with $status; its output:)"; grep -v '|' "$out" | tail -5; }
printf '%-42s | %-6s | %s\n' "same model in JAX, state donated" "timed" "$jax_line"
printf '%-42s | %-6s | %s\n' "custom kernels (PTX) against the host" "$([[ $kernels -eq 0 ]] && echo pass || echo FAIL)" \
  "$(tr '\n' ';' <"$kernel_out")"
[[ $kernels -eq 0 ]] || status=1
printf '%-42s | %-6s | %s\n' "gpu-check total" "$([[ $status -eq 0 ]] && echo pass || echo FAIL)" \
  "$((SECONDS - start)) s"
exit "$status"
