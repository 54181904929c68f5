// Attributes that several tl::lax entry points build from their arguments: the
// static and dynamic forms of convolution and gather share their dimension
// numbers, and the windowed ops and convolution take padding as low and high lists.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ir/op.hpp"
#include "tlaloc/lax.hpp"

namespace tlaloc::detail {

// convolution and dynamic_conv, in the order both list them. padding: [low, high]
// per spatial dimension, or null for dynamic_conv (an operand there).
Attrs conv_attrs(const lax::ConvDimensionNumbers& dims, const std::vector<std::int64_t>& window_strides,
                 const std::vector<std::int64_t>* padding, const std::vector<std::int64_t>& lhs_dilation,
                 const std::vector<std::int64_t>& rhs_dilation, const std::vector<std::int64_t>& window_reversal,
                 std::int64_t feature_group_count, std::int64_t batch_group_count, DType result_element_type);

// gather and dynamic_gather: the dimension numbers, then (static gather only)
// slice_sizes, then indices_are_sorted.
Attrs gather_attrs(const lax::GatherDimensionNumbers& dims, const std::vector<std::int64_t>* slice_sizes,
                   bool indices_are_sorted);

// StableHLO's padding attribute, [low, high] per dimension, from the two lists;
// `operands` names the op's operand shapes in the refusal of lists of two lengths.
std::vector<std::int64_t> interleaved_padding(const char* op, const std::vector<std::int64_t>& low,
                                              const std::vector<std::int64_t>& high, const std::string& operands);

}  // namespace tlaloc::detail
