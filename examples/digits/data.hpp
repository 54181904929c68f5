// The handwritten-digits data set: reading the CSV file and the fixed held-out split.
#pragma once

#include <tlaloc/tlaloc.hpp>

#include <cstdint>
#include <filesystem>
#include <vector>

namespace digits {

namespace tl = tlaloc;

inline constexpr std::int64_t kSide = 8;  // images are 8 x 8
inline constexpr std::int64_t kPixels = kSide * kSide;
inline constexpr std::int64_t kClasses = 10;

struct Digits {
  tl::Tensor images;  // [N, 64] f32, pixel values 0..16 scaled to [0, 1]
  tl::Tensor labels;  // [N] i64, 0..9
  std::int64_t size() const { return labels.shape()[0]; }
};

// Reads lines of 64 pixel values 0..16 and a label 0..9, comma-separated. A line
// that is not so gives a tl::ValueError naming the file, the line and what is wrong.
Digits load_digits(const std::filesystem::path& csv);

// A permutation of 0..n-1 that depends only on the key: the order of n threefry
// uniforms (ties, which are unlikely, keep index order).
std::vector<std::int64_t> permutation(std::int64_t n, tl::random::Key key);

// The rows of `d` at `rows`, in that order.
Digits take_rows(const Digits& d, const std::vector<std::int64_t>& rows);

struct Split {
  Digits train;
  Digits test;
};

// The last round(test_fraction * N) rows of the permutation for `key` are held out,
// the others are for training: the same split on every run and every machine.
Split hold_out(const Digits& all, double test_fraction, tl::random::Key key);

}  // namespace digits
