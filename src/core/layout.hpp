// Host helpers for moving elements between layouts, shared by several op families.
#pragma once

#include <cstdint>
#include <vector>

#include "tlaloc/tensor.hpp"

namespace tlaloc::detail {

// A new contiguous tensor holding x with its axes permuted (out axis i = x axis perm[i]).
Tensor permute_copy(const Tensor& x, const std::vector<std::int64_t>& perm);

// Row-major strides of a shape, in elements.
std::vector<std::int64_t> strides_of(const Shape& s);

// An element of 16 bytes (c128), for kernels that move elements without reading them.
struct Bytes16 {
  std::uint64_t lo, hi;
};
// Calls f with a value of the unsigned word type of `size` bytes (1, 2, 4, 8 or 16):
// moving data needs the element size only, not the element type.
template <class F>
void with_element_size(std::size_t size, F&& f) {
  switch (size) {
    case 1:
      f(std::uint8_t{});
      break;
    case 2:
      f(std::uint16_t{});
      break;
    case 4:
      f(std::uint32_t{});
      break;
    case 8:
      f(std::uint64_t{});
      break;
    default:
      f(Bytes16{});
      break;
  }
}

}  // namespace tlaloc::detail
