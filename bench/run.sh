#!/usr/bin/env bash
# Runs every benchmark in one go and prints ratios: Tlaloc against OpenBLAS (matmul)
# and against PyTorch (elementwise, sum, dispatch, gradients, training steps).
# Usage: bench/run.sh BUILD_DIR [repeats] [rounds]
set -euo pipefail
build=${1:-build/release}
repeats=${2:-5}
rounds=${3:-3}
here=$(dirname "$0")
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
common=(--benchmark_repetitions="$repeats" --benchmark_report_aggregates_only=true)

if [[ -x "$build/bench/matmul_bench" ]]; then
  echo "== matmul: tl::matmul against cblas_sgemm called directly (median of $repeats)"
  # Repetitions of the two sides interleave, so a noisy moment hits both alike.
  "$build/bench/matmul_bench" "${common[@]}" --benchmark_enable_random_interleaving=true \
    --benchmark_format=json >"$out/matmul.json" 2>/dev/null
  /usr/bin/python3 "$here/matmul_ratio.py" "$out/matmul.json"
fi

if [[ -x "$build/bench/interp_bench" ]]; then
  echo "== interpreter against eager calls, and elementwise fusion (median of $repeats)"
  "$build/bench/interp_bench" "${common[@]}" --benchmark_enable_random_interleaving=true \
    --benchmark_format=json >"$out/interp.json" 2>/dev/null
  /usr/bin/python3 "$here/interp_ratio.py" "$out/interp.json"
fi

if [[ -x "$build/bench/ad_bench" ]]; then
  echo "== gradients: MLP value_and_grad against its forward and PyTorch's forward + backward, and the"
  echo "   transforms' own costs ($rounds rounds run alternately with PyTorch, each the median of $repeats)"
  ours=() theirs=()
  for r in $(seq "$rounds"); do
    "$build/bench/ad_bench" "${common[@]}" --benchmark_enable_random_interleaving=true \
      --benchmark_format=json >"$out/ad$r.json" 2>/dev/null
    # 2 threads: ad_bench's benchmarks run with their argument /2.
    /usr/bin/python3 "$here/ad_torch_bench.py" 2 "$repeats" >"$out/ad_torch$r.json"
    ours+=("$out/ad$r.json") theirs+=("$out/ad_torch$r.json")
  done
  /usr/bin/python3 "$here/ad_ratio.py" --ours "${ours[@]}" --theirs "${theirs[@]}"
fi

if [[ -x "$build/bench/train_bench" ]]; then
  echo "== training steps: value_and_grad + Adam as one jit program against PyTorch's forward, backward"
  echo "   and torch.optim.Adam(foreach=True).step() ($rounds rounds run alternately, each the median of $repeats)"
  ours=() theirs=()
  for r in $(seq "$rounds"); do
    "$build/bench/train_bench" "${common[@]}" --benchmark_format=json >"$out/train$r.json" 2>/dev/null
    # 2 threads: train_bench's benchmarks run with their argument /2.
    /usr/bin/python3 "$here/train_torch_bench.py" 2 "$repeats" >"$out/train_torch$r.json"
    ours+=("$out/train$r.json") theirs+=("$out/train_torch$r.json")
  done
  /usr/bin/python3 "$here/train_ratio.py" --ours "${ours[@]}" --theirs "${theirs[@]}"
fi

if [[ -x "$build/bench/device_resident_bench" ]]; then
  echo "== training with the state on a PJRT device against a host round trip every step"
  "$build/bench/device_resident_bench" "" $((repeats + 2)) 50
fi

if [[ -x "$build/bench/lm_decode_bench" && -x "$build/examples/lm" ]]; then
  echo "== decode tokens/s of examples/lm's model: its artifact through a PJRT Session on Tlaloc's CPU plugin"
  echo "   (caches donated) against PyTorch eager with a KV cache, 2 threads each ($rounds rounds run"
  echo "   alternately, each the median of $repeats runs of 100 tokens; ratio = Tlaloc / PyTorch)"
  "$build/examples/lm" --steps 20 --tokens 4 --out "$out/lm" --trace "$out/lm/trace.json" >/dev/null
  ours=() theirs=()
  for r in $(seq "$rounds"); do
    ours+=("$(TLALOC_NUM_THREADS=2 "$build/bench/lm_decode_bench" "$out/lm/artifact" "" "$repeats" 100)")
    theirs+=("$(/usr/bin/python3 "$here/lm_decode_torch.py" "$out/lm/trace.json" 2 "$repeats" 100)")
  done
  /usr/bin/python3 "$here/lm_decode_ratio.py" --ours "${ours[@]}" --theirs "${theirs[@]}"
fi

if [[ -x "$build/bench/grad_tool_bench" ]]; then
  echo "== tlaloc-grad: the MLP gradient written at build time against tl::jit(tl::grad(f)) (medians of"
  echo "   alternating rounds; ratio = generated / jit, the bound is 1.1), and the tool's time on a"
  echo "   309-line file (the bound is 2 s; medians of 5 runs): without a cache, filling one, reading one"
  "$build/bench/grad_tool_bench" $((rounds * 2 + 1)) 10
  /usr/bin/python3 - "$build/tools/tlaloc-grad/tlaloc-grad" "$here/grad_tool/three_hundred_lines.cpp" "$out/grad300" \
    "$here/../include" <<'PY'
import fcntl, glob, shutil, statistics, subprocess, sys, time
tool, source, out, include = sys.argv[1:]
cache = out + "/cache"
def run(*extra):
    start = time.perf_counter()
    subprocess.run([tool, source, "-o", out + "/out.cpp", *extra, "--", "-std=c++20", "-I" + include], check=True)
    return time.perf_counter() - start
# The run that fills the cache returns before its entry is built (by a process it
# leaves behind, which holds a lock on a file until it is done): both times are reported.
filled, built = [], []
def filling():
    shutil.rmtree(cache, ignore_errors=True)
    start = time.perf_counter()
    filled.append(run("--cache-dir", cache))
    for lock in glob.glob(cache + "/*.lock"):
        with open(lock) as f:
            fcntl.flock(f, fcntl.LOCK_SH)
    built.append(time.perf_counter() - start)
plain = [run() for _ in range(5)]
for _ in range(5):
    filling()
read = [run("--cache-dir", cache) for _ in range(5)]
print("tlaloc-grad on a 309-line file: median " + ", ".join(
    f"{what} {statistics.median(t):.2f} s" for what, t in
    [("without a cache", plain), ("filling the cache", filled), ("its entry built", built),
     ("reading it", read)]))
PY
fi

echo "== elementwise, sum and dispatch: Tlaloc against PyTorch $(/usr/bin/python3 -c 'import torch; print(torch.__version__)')"
echo "   ($rounds rounds run alternately, each the median of $repeats; ratio = PyTorch time / Tlaloc time)"
ours=() theirs=()
for r in $(seq "$rounds"); do
  "$build/bench/elementwise_bench" "${common[@]}" --benchmark_format=json >"$out/tlaloc$r.json" 2>/dev/null
  /usr/bin/python3 "$here/torch_bench.py" "$repeats" >"$out/torch$r.json"
  ours+=("$out/tlaloc$r.json") theirs+=("$out/torch$r.json")
done
/usr/bin/python3 "$here/compare.py" --ours "${ours[@]}" --theirs "${theirs[@]}"

if [[ -x "$build/bench/mpi_bench" ]] && command -v mpirun >/dev/null; then
  transport=$(find "$build/plugins/mpi" -name 'libtlaloc_mpi.so' | head -n 1)
  mpi=(mpirun -np 2 --oversubscribe --allow-run-as-root -x TLALOC_MPI_TRANSPORT -x TLALOC_NUM_THREADS)
  echo "== several processes through MPI, 2 processes of one thread on this machine (median of $repeats)"
  TLALOC_MPI_TRANSPORT=$transport TLALOC_NUM_THREADS=1 "${mpi[@]}" "$build/bench/mpi_bench" allreduce "$repeats"
  echo "== data-parallel MLP step (784-512-512-10, global batch 256): 2 MPI processes of one thread against"
  echo "   one process running the 2 devices as threads ($rounds rounds run alternately, each the median of $repeats)"
  procs=() threads=()
  for r in $(seq "$rounds"); do
    procs+=("$(TLALOC_MPI_TRANSPORT=$transport TLALOC_NUM_THREADS=1 "${mpi[@]}" "$build/bench/mpi_bench" step "$repeats")")
    threads+=("$(TLALOC_NUM_THREADS=1 "$build/bench/mpi_bench" step "$repeats")")
  done
  /usr/bin/python3 - "${procs[*]}" "${threads[*]}" <<'PY'
import statistics, sys
procs, threads = ([float(v) for v in a.split()] for a in sys.argv[1:3])
p, t = statistics.median(procs), statistics.median(threads)
print(f"step: MPI processes {p * 1e3:.1f} ms, threads {t * 1e3:.1f} ms, ratio {p / t:.2f} (the goal is at most 1.15)")
PY
fi

if [[ -x "$build/bench/custom_kernel_bench" ]]; then
  echo "== custom kernels: examples/custom-kernel's fused RMSNorm forward + backward on [4096, 1024] f32, against"
  echo "   the same function composed of library ops (both tl::grad programs) and PyTorch's composed version"
  echo "   ($rounds rounds run alternately, each the median of $repeats)"
  ours=() theirs=()
  for r in $(seq "$rounds"); do
    ours+=("$("$build/bench/custom_kernel_bench" "$repeats")")
    theirs+=("$(/usr/bin/python3 "$here/custom_kernel_torch.py" 2 "$repeats")")
  done
  /usr/bin/python3 - "${ours[*]}" "${theirs[*]}" <<'PY'
import statistics, sys
words = sys.argv[1].split()
fused = statistics.median(float(v) for k, v in zip(words[::2], words[1::2]) if k == "fused")
composed = statistics.median(float(v) for k, v in zip(words[::2], words[1::2]) if k == "composed")
torch = statistics.median(float(v) for v in sys.argv[2].split()[1::2])
print(f"fused kernels {fused * 1e3:.2f} ms; composed ops {composed * 1e3:.2f} ms (ratio {composed / fused:.2f}, "
      f"the goal is at least 1.5); PyTorch {torch * 1e3:.2f} ms (ratio {torch / fused:.2f}, the goal is at least 2)")
PY
fi

if [[ -x "$build/bench/bounded_export" && -f "$build/plugins/pjrt-cpu/libtlaloc_pjrt_cpu.so" ]]; then
  echo "== bounded shapes: an MLP (784-256-10) served from Python through the CPU plugin at batch 1..256, its"
  echo "   bounded entry point (powers-of-two buckets) against exact exports of each size (median of $repeats)"
  "$build/bench/bounded_export" "$out/bounded"
  PYTHONPATH="$here/../python" /usr/bin/python3 "$here/bounded_serve.py" "$out/bounded" \
    "$build/plugins/pjrt-cpu/libtlaloc_pjrt_cpu.so" "$repeats"
fi

if [[ -x "$build/examples/lm" ]]; then
  echo "== bounded shapes: examples/lm's one bounded prefill over prompts of 1..64 bytes (buckets 16, 64), each"
  echo "   generating 8 ids through the artifact against the eager run at the exact size (60 training steps)"
  TLALOC_NUM_THREADS=1 "$build/examples/lm" --steps 60 --tokens 8 --out "$out/lm" >/dev/null
  TLALOC_NUM_THREADS=1 "$build/examples/lm" --load --out "$out/lm" --sweep --tokens 8
fi
