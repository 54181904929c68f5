#!/usr/bin/env bash
# Puts the handwritten-digits data set (1,797 8x8 images; 64 pixel values 0..16 and
# the label 0..9 per line) at DIR/digits.csv. The file comes from Debian's
# python3-sklearn package (sklearn/datasets/data/digits.csv.gz): the installed copy
# when the package is installed, otherwise the package downloaded with
# `apt-get download` and unpacked with `dpkg -x` into a temporary directory, which
# installs nothing (scikit-learn's Python dependencies are not needed for one file).
#
#   examples/digits/get-data.sh DIR
set -euo pipefail

readonly package=python3-sklearn
readonly member=sklearn/datasets/data/digits.csv.gz

fail() {
  echo "get-data.sh: $*" >&2
  exit 1
}

(($# == 1)) || fail "usage: get-data.sh DIR (writes DIR/digits.csv)"
out_dir=$1
mkdir -p "$out_dir" || fail "cannot create the directory $out_dir"

# The installed package's copy, if there is one.
installed_copy() {
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || return 0
  dpkg -L "$package" 2>/dev/null | grep "/$member\$" | head -n 1 || true
}

# Downloads the package into the directory $1 and unpacks it there; prints the path.
downloaded_copy() {
  local scratch=$1
  if ! command -v apt-get >/dev/null || ! command -v dpkg >/dev/null; then
    fail "needs Debian's apt-get and dpkg to fetch $package (or put $member, gunzipped, at $out_dir/digits.csv)"
  fi
  # apt-get drops root to the user _apt for downloads; let it write here.
  if [[ $(id -u) -eq 0 ]] && id _apt >/dev/null 2>&1; then chown _apt "$scratch"; fi
  local log
  if ! log=$(cd "$scratch" && apt-get download "$package" 2>&1); then
    if grep -q "Unable to locate package" <<<"$log"; then
      fail "apt knows no package $package: its package lists are missing or old; run 'apt-get update' (as root) and build again"
    fi
    fail "apt-get download $package failed:"$'\n'"$log"
  fi
  local deb
  deb=$(find "$scratch" -maxdepth 1 -name "${package}_*.deb" | head -n 1)
  [[ -n $deb ]] || fail "apt-get download $package left no .deb file"
  dpkg -x "$deb" "$scratch/root" || fail "dpkg -x could not unpack $deb"
  local found
  found=$(find "$scratch/root" -path "*/$member" | head -n 1)
  [[ -n $found ]] || fail "$(basename "$deb") has no file $member"
  echo "$found"
}

source_file=$(installed_copy)
if [[ -n $source_file ]]; then
  echo "get-data.sh: using the installed $package's $member"
else
  echo "get-data.sh: downloading $package with apt-get, to unpack one file (nothing is installed)"
  scratch=$(mktemp -d)
  trap 'rm -rf "$scratch"' EXIT
  source_file=$(downloaded_copy "$scratch")
fi

# Written under a temporary name and renamed, so a build interrupted here leaves no
# half-written data file behind.
partial="$out_dir/digits.csv.partial.$$"
gzip -dc "$source_file" >"$partial" || {
  rm -f "$partial"
  fail "could not decompress $source_file"
}
mv -f "$partial" "$out_dir/digits.csv"
echo "get-data.sh: wrote $out_dir/digits.csv ($(wc -l <"$out_dir/digits.csv") lines)"
