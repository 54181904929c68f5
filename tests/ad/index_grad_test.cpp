// Indexing gradients beyond the table: repeated indices add up. (gather's second
// order, through its scatter gradient, is a row of tests/ad/cases_index.cpp.)
#include <gtest/gtest.h>

#include <tlaloc/tlaloc.hpp>

namespace {

namespace tl = tlaloc;
using tl::Tensor;

Tensor ints(std::vector<std::int64_t> v, tl::Shape s) { return tl::tensor(v, s); }

// The gradient of a sum of take with repeated indices counts each index's uses.
TEST(GradTake, DuplicateIndicesAddUp) {
  const Tensor x = tl::tensor({1.0, 2.0, 3.0, 4.0}, {4});
  const Tensor idx = ints({2, 0, 2, 2, -1}, {5});
  const Tensor g = tl::grad([&](const Tensor& v) { return tl::sum(tl::take(v, idx, 0)); })(x);
  EXPECT_EQ(g.to_vector<double>(), (std::vector<double>{1, 0, 3, 1}));
}

}  // namespace
