// Public functions recorded as one op each on values whose types are known at run
// time only (traced at build time, docs/ENGINE_AT_BUILD_TIME.md), their options
// field by field. Where types are known the functions record their own steps; these
// ops run those steps once the types are known. Each is defined beside its rules.
#pragma once

#include "tlaloc/ops.hpp"

namespace tlaloc::detail {

Tensor record_conv_transpose2d(const Tensor& x, const Tensor& w,
                               const ConvTranspose2dOptions& opt);    // conv_transpose.cpp
Tensor record_max_pool2d(const Tensor& x, const Pool2dOptions& opt);  // pool_call.cpp
Tensor record_avg_pool2d(const Tensor& x, const Pool2dOptions& opt);  // pool_call.cpp

}  // namespace tlaloc::detail
