// The MLP of the training benchmarks (784-512-512-10, tanh, mean squared error) as
// one function of its first layer's weights, seen by both sides of grad_tool_bench.
#pragma once

#include <tlaloc/tlaloc.hpp>

inline tlaloc::Tensor mlp_loss(const tlaloc::Tensor& w1, const tlaloc::Tensor& b1, const tlaloc::Tensor& w2,
                               const tlaloc::Tensor& b2, const tlaloc::Tensor& w3, const tlaloc::Tensor& b3,
                               const tlaloc::Tensor& x, const tlaloc::Tensor& y) {
  namespace tl = tlaloc;
  const tl::Tensor h1 = tl::tanh(tl::matmul(x, w1) + b1);
  const tl::Tensor h2 = tl::tanh(tl::matmul(h1, w2) + b2);
  const tl::Tensor out = tl::matmul(h2, w3) + b3;
  return tl::mean(tl::square(out - y));
}
