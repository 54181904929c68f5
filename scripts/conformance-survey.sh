#!/usr/bin/env bash
# Runs the StableHLO reference interpreter's per-op test files (the conformance suite
# kept beside the clone, never copied in) through `tlaloc run --split-input-file` and
# prints each file's tally, the total, and the reasons of the failures, most common
# first. A case is a public function without parameters of a split (or the entry a
# RUN line gives arguments); a split that fails to parse counts as one failed case. Usage: scripts/conformance-survey.sh [BUILD_DIR] [SUITE_DIR]
set -uo pipefail
build=${1:-build/release}
suite=${2:-$(dirname "$0")/../../shared/conformance/stablehlo-interpret}
if [[ ! -x "$build/tlaloc" || ! -d "$suite" ]]; then
  echo "usage: $0 [BUILD_DIR with tlaloc built] [SUITE_DIR]" >&2
  exit 2
fi
out=$(mktemp)
trap 'rm -f "$out"' EXIT
for f in "$suite"/*.mlir; do
  # A file whose RUN line passes arguments (--args="[...]") runs with them.
  args=$(sed -n 's/^\/\/ RUN: stablehlo-translate .*--args="\([^"]*\)".*/\1/p' "$f" | head -1)
  tally=$(timeout 120 "$build/tlaloc" run "$f" --split-input-file ${args:+--args "$args"} 2>&1 | tee -a "$out" | tail -1)
  echo "$(basename "$f"): $tally"
done
echo "splits: $(cat "$suite"/*.mlir | grep -c '^// -----' | awk -v files="$(ls "$suite"/*.mlir | wc -l)" '{ print $1 + files }')"
awk '/ passed, [0-9]+ failed$/ { p += $(NF-3); f += $(NF-1) } END { printf "total: %d of %d cases pass (%.1f%%)\n", p, p + f, 100 * p / (p + f) }' "$out"
echo "failures by reason:"
grep -E "error:|FAILED" "$out" | sed -E 's/.*(error|FAILED @[A-Za-z0-9_]+): //; s/[^ ]*\.mlir:[0-9]+:[0-9]+: //; s/[0-9]+/N/g' |
  cut -c1-110 | sort | uniq -c | sort -rn | head -25
