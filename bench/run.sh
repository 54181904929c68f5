#!/usr/bin/env bash
# Runs every benchmark in one go and prints ratios: Tlaloc against OpenBLAS (matmul)
# and against PyTorch (elementwise, sum, dispatch). Usage: bench/run.sh BUILD_DIR [repeats]
set -euo pipefail
build=${1:-build/release}
repeats=${2:-5}
here=$(dirname "$0")
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
common=(--benchmark_repetitions="$repeats" --benchmark_report_aggregates_only=true)

if [[ -x "$build/bench/matmul_bench" ]]; then
  echo "== matmul: tl::matmul against cblas_sgemm called directly (median of $repeats)"
  "$build/bench/matmul_bench" "${common[@]}" --benchmark_format=json >"$out/matmul.json" 2>/dev/null
  /usr/bin/python3 "$here/matmul_ratio.py" "$out/matmul.json"
fi

echo "== elementwise, sum and dispatch: Tlaloc against PyTorch $(/usr/bin/python3 -c 'import torch; print(torch.__version__)') (median of $repeats)"
"$build/bench/elementwise_bench" "${common[@]}" --benchmark_format=json >"$out/tlaloc.json" 2>/dev/null
/usr/bin/python3 "$here/torch_bench.py" "$repeats" >"$out/torch.json"
/usr/bin/python3 "$here/compare.py" "$out/tlaloc.json" "$out/torch.json"
