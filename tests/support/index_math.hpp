// Row-major index arithmetic for reference loops in tests.
#pragma once

#include <cstdint>
#include <vector>

#include <tlaloc/tensor.hpp>

namespace tltest {

inline std::int64_t count(const tlaloc::Shape& s) {
  std::int64_t n = 1;
  for (auto d : s) n *= d;
  return n;
}

// The multi-index of a flat row-major position.
inline std::vector<std::int64_t> unravel(std::int64_t flat, const tlaloc::Shape& s) {
  std::vector<std::int64_t> idx(s.size());
  for (std::size_t d = s.size(); d-- > 0;) {
    idx[d] = flat % s[d];
    flat /= s[d];
  }
  return idx;
}

// The flat row-major position of a multi-index.
inline std::int64_t ravel(const std::vector<std::int64_t>& idx, const tlaloc::Shape& s) {
  std::int64_t f = 0;
  for (std::size_t d = 0; d < s.size(); ++d) f = f * s[d] + idx[d];
  return f;
}

}  // namespace tltest
