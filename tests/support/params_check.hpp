// Shared by the tl::nn layer tests: equal f32 results, and a gradient of f32
// parameters against central differences of the same loss in f64, on three elements
// (first, middle, last) of each parameter.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "tlaloc/nn.hpp"

namespace tltest {

inline void expect_bit_equal(const tlaloc::Tensor& a, const tlaloc::Tensor& b) {
  ASSERT_EQ(a.shape(), b.shape());
  ASSERT_EQ(a.dtype(), b.dtype());
  EXPECT_EQ(a.to_vector<float>(), b.to_vector<float>());
}

// loss64 evaluates the loss on f64 copies of the parameters (and of any input).
inline void expect_grad_matches_differences(const tlaloc::nn::Params& p, const tlaloc::nn::Params& g,
                                            const std::function<double(const tlaloc::nn::Params&)>& loss64,
                                            double tol) {
  tlaloc::nn::Params p64;
  for (const auto& [name, t] : p) p64.set(name, t.astype(tlaloc::DType::f64));
  const double h = 1e-6;
  for (const auto& entry : p) {
    const std::string& name = entry.first;
    const tlaloc::Tensor& t = entry.second;
    const std::vector<double> base = t.astype(tlaloc::DType::f64).to_vector<double>();
    const std::vector<double> gv = g.at(name).to_vector<double>();
    for (std::size_t i : {std::size_t{0}, base.size() / 2, base.size() - 1}) {
      auto at = [&](double delta) {
        std::vector<double> v = base;
        v[i] += delta;
        tlaloc::nn::Params q = p64;
        q.set(name, tlaloc::tensor(v, t.shape()));
        return loss64(q);
      };
      const double fd = (at(h) - at(-h)) / (2 * h);
      EXPECT_NEAR(gv[i], fd, tol * (1 + std::abs(fd))) << name << "[" << i << "]";
    }
  }
}

}  // namespace tltest
