// What the kernels of ops with regions share: a region called on single elements.
#pragma once

#include <span>
#include <string_view>

#include "ir/op.hpp"

namespace tlaloc::detail {

// Element i (row-major) of `src`, as a rank-0 tensor: what a region receives.
Tensor scalar_at(const Tensor& src, std::int64_t i);

// Region 0 of `regions` applied to the inputs' elements one position at a time (the
// inputs share one shape), each call returning one scalar of `out`'s dtype; refuses
// any other result naming `op`.
Tensor map_region(std::string_view op, std::span<const Tensor> in, const TensorType& out,
                  const RegionCalls& regions);

}  // namespace tlaloc::detail
