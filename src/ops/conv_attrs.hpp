// The attributes StableHLO's convolution and dynamic_conv share, from tl::lax's
// arguments, in the order both ops list them.
#pragma once

#include <cstdint>
#include <vector>

#include "ops/op.hpp"
#include "tlaloc/lax.hpp"

namespace tlaloc::detail {

// padding: [low, high] per spatial dimension, or null for dynamic_conv (an operand).
Attrs conv_attrs(const lax::ConvDimensionNumbers& dims, const std::vector<std::int64_t>& window_strides,
                 const std::vector<std::int64_t>* padding, const std::vector<std::int64_t>& lhs_dilation,
                 const std::vector<std::int64_t>& rhs_dilation, const std::vector<std::int64_t>& window_reversal,
                 std::int64_t feature_group_count, std::int64_t batch_group_count, DType result_element_type);

}  // namespace tlaloc::detail
