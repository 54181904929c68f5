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

}  // namespace tlaloc::detail
