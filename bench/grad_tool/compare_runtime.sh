#!/bin/bash
# The run time of the gradients two tlaloc-grad binaries write for
# three_hundred_lines.cpp (17 gradients through loops), side by side: each rewritten
# file's main() runs N times, seven rounds, interleaved; the median per run is printed.
#
#   bench/grad_tool/compare_runtime.sh BUILD_DIR TOOL_A TOOL_B [N]
#
# BUILD_DIR: a release build (its libtlaloc links both); the tools: e.g. an older
# build's tools/tlaloc-grad/tlaloc-grad beside BUILD_DIR's.
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
build=$(cd "$1" && pwd)
n=${4:-300}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for side in a b; do
  tool=$([ $side = a ] && echo "$2" || echo "$3")
  mkdir -p "$work/$side"
  "$tool" "$root/bench/grad_tool/three_hundred_lines.cpp" -o "$work/$side/gen.cpp" --dump-dir "$work/$side" \
      --arguments right-to-left -- -std=c++20 -I"$root/include" > /dev/null
  # main() becomes run_once(), called by a timing loop.
  sed -i 's/^int main() {/static int run_once() {/' "$work/$side/gen.cpp"
  cat >> "$work/$side/gen.cpp" <<'EOF'
#include <algorithm>
#include <chrono>
#include <cstdlib>
int main(int argc, char** argv) {
  const int n = std::atoi(argv[1]);
  std::vector<double> ms;
  for (int r = 0; r < 7; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < n; ++i) run_once();
    ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count() / n);
  }
  std::sort(ms.begin(), ms.end());
  std::fprintf(stderr, "%.4f\n", ms[3]);
}
EOF
  g++ -std=c++20 -O2 -I"$root/include" "$work/$side/gen.cpp" -L"$build" -ltlaloc -Wl,-rpath,"$build" \
      -o "$work/$side/bench"
done
if [ "$("$work/a/bench" 1 2> /dev/null)" != "$("$work/b/bench" 1 2> /dev/null)" ]; then
  echo "the two gradients' results differ" >&2
  exit 1
fi
for round in 1 2 3; do
  a=$("$work/a/bench" "$n" 2>&1 > /dev/null)
  b=$("$work/b/bench" "$n" 2>&1 > /dev/null)
  echo "round $round: A $a ms, B $b ms per run of the 17 gradients (median of 7 rounds of $n)"
done
