// The types of the tensors the creating functions make (creation.cpp), shared with
// the ops that stand for those functions at build time (src/ops/creation_calls.cpp).
#pragma once

#include <cstdint>

#include "tlaloc/tensor.hpp"

namespace tlaloc::detail {

// tl::full's dtype where none is given: f32 for a floating value, i64 for an integer,
// bool for a bool.
DType default_dtype(Scalar v);
// tl::eye(n, m)'s shape: n by m, or n by n where m is negative.
Shape eye_shape(std::int64_t n, std::int64_t m);

}  // namespace tlaloc::detail
