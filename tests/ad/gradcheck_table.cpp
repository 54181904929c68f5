// The gradient-check table's registry and input helpers (tests/ad/gradcheck.hpp),
// apart from the gtest harness in gradcheck.cpp so that the oracle lane's
// tests/oracle/grad_oracle_cases links the same cases_*.cpp rows without gtest.
#include "ad/gradcheck.hpp"

namespace gradcheck {

std::vector<Case>& table() {
  static std::vector<Case> t;
  return t;
}

bool add(std::vector<Case> cases) {
  for (Case& c : cases) table().push_back(std::move(c));
  return true;
}

Tensor uniform(const tl::Shape& shape, double lo, double hi, std::uint64_t seed) {
  return tl::random::uniform(tl::random::key(seed), shape, tl::DType::f64, lo, hi);
}

Tensor away_from_zero(const tl::Shape& shape, std::uint64_t seed) {
  const Tensor mag = uniform(shape, 0.2, 2.0, seed);
  const Tensor sign = tl::where(uniform(shape, 0, 1, seed + 1000) < 0.5, -1.0, mag * 0 + 1.0);
  return mag * sign;
}

}  // namespace gradcheck
