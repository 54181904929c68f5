#!/bin/bash
# Looks for tlaloc-grad bugs with functions of random control flow (random_programs.py)
# beyond the seeds the test build keeps: for each seed, writes 25 functions, builds
# them traced and generated with GCC (the tool in GCC's order of call arguments), runs
# both and compares their outputs. A seed that finds a bug belongs in random_seeds in
# tests/grad_tool/CMakeLists.txt once the bug is fixed.
#
#   tests/grad_tool/random_search.sh [--ops | --mixed | --ranged | --windowed | --channels | --params | --layers | --pair] [--depth D] BUILD_DIR SEED...
#
# BUILD_DIR: a release build; --ops: the wider grammar (random_programs.py --ops-seeds,
# kept in random_ops_seeds); --mixed: that grammar with operands that broadcast
# (--mixed-seeds, kept in random_mixed_seeds); --ranged: that with range-fors over its
# captured list and Params (--ranged-seeds, kept in random_ranged_seeds); --windowed: that
# with edge pads, conv2d and the pools (--windowed-seeds, kept in random_windowed_seeds);
# --channels: that over several channels, a batch, groups, strides and dilations, with
# conv_transpose2d too (--channels-seeds, kept in random_channels_seeds); --params: the
# grammar of --ranged over a differentiated tl::nn::Params (--params-seeds, kept in
# random_params_seeds); --layers: that with tl::nn layers over the Params' sub-Params
# (--layers-seeds, kept in random_layers_seeds);
# --pair: the wider grammar over two tensors,
# through tl::argnums, a list of both and tl::vjp (--pair-seeds, kept in
# random_pair_seeds); --depth: how deep statements nest (3 by default).
set -u
which=--seeds
depth=3
while [ $# -gt 0 ]; do
  case "$1" in
    --ops) which=--ops-seeds; shift ;;
    --mixed) which=--mixed-seeds; shift ;;
    --ranged) which=--ranged-seeds; shift ;;
    --windowed) which=--windowed-seeds; shift ;;
    --channels) which=--channels-seeds; shift ;;
    --params) which=--params-seeds; shift ;;
    --layers) which=--layers-seeds; shift ;;
    --pair) which=--pair-seeds; shift ;;
    --depth) depth=$2; shift 2 ;;
    *) break ;;
  esac
done
if [ $# -lt 2 ]; then
  echo "usage: $0 [--ops | --mixed | --ranged | --windowed | --channels | --params | --layers | --pair] [--depth D] BUILD_DIR SEED..." >&2
  exit 2
fi
root=$(cd "$(dirname "$0")/../.." && pwd)
build=$(cd "$1" && pwd)
shift
work=$(mktemp -d)
echo "work: $work"
# The test build's warnings (tlaloc_warnings): generated code must compile under them.
flags=(-std=c++20 -O1 -Wall -Wextra -Wpedantic -Wshadow -Wconversion -Wno-sign-conversion -Werror
       -I"$root/include" -I"$root/tests/grad_tool" -L"$build" -ltlaloc -Wl,-rpath,"$build")
status=0
for seed in "$@"; do
  dir=$work/$seed
  mkdir -p "$dir"
  python3 "$root/tests/grad_tool/random_programs.py" "$which" "$seed" --count 25 --depth "$depth" -o "$dir/f.cpp"
  if ! "$build/tools/tlaloc-grad/tlaloc-grad" "$dir/f.cpp" -o "$dir/generated.cpp" --dump-dir "$dir/dump" \
      --arguments right-to-left -- -std=c++20 -I"$root/include" -I"$root/tests/grad_tool" > "$dir/tool.txt" 2>&1; then
    echo "seed $seed: tlaloc-grad failed ($dir/tool.txt)"
    status=1
    continue
  fi
  if ! g++ "$dir/f.cpp" -o "$dir/traced" "${flags[@]}" || ! g++ "$dir/generated.cpp" -o "$dir/generated" "${flags[@]}"; then
    echo "seed $seed: does not compile ($dir)"
    status=1
    continue
  fi
  "$dir/traced" > "$dir/traced.txt" 2>&1
  "$dir/generated" > "$dir/generated.txt" 2>&1
  if cmp -s "$dir/traced.txt" "$dir/generated.txt" && tail -1 "$dir/generated.txt" | grep -q '^0 failures'; then
    echo "seed $seed: same bits, 0 failures"
  else
    echo "seed $seed: DIFFERENT ($dir/traced.txt, $dir/generated.txt)"
    status=1
  fi
done
exit $status
