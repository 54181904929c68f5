// The transposes of conv2d, shared by its derivative rules (conv.cpp), by StableHLO
// convolution's (convolution.cpp: its 2-D cases, transposed to NCHW / OIHW) and by
// average pooling's (pool.cpp: a sum over windows is a depthwise convolution with
// a kernel of ones).
#pragma once

#include "ir/op.hpp"

namespace tlaloc::detail {

// The cotangent of conv2d's input x (of shape x_shape) for the cotangent g of its
// result, under the conv2d op's attributes: a convolution of g dilated by the
// strides with w flipped and its channels swapped within each group.
Tensor conv2d_input_grad(const Tensor& g, const Tensor& w, const Shape& x_shape, const Attrs& attrs);
// The cotangent of conv2d's kernel (of shape w_shape): a convolution of x with g as
// the kernel, the batch summed over.
Tensor conv2d_kernel_grad(const Tensor& g, const Tensor& x, const Shape& w_shape, const Attrs& attrs);

}  // namespace tlaloc::detail
