// Indexing gradients beyond the table: repeated indices add up; gather's gradient
// (a scatter) is refused by name when differentiated again.
#include <gtest/gtest.h>

#include <tlaloc/tlaloc.hpp>

#include "ops/op.hpp"
#include "support/expect_error.hpp"

namespace {

namespace tl = tlaloc;
using tl::Tensor;
using Ints = std::vector<std::int64_t>;

Tensor ints(std::vector<std::int64_t> v, tl::Shape s) { return tl::tensor(v, s); }

Tensor gather(const Tensor& x, const Tensor& idx, const tl::detail::Attrs& attrs) {
  return tl::detail::call1(*tl::detail::find_op("gather"), {x, idx}, attrs);
}

// The gradient of a sum of take with repeated indices counts each index's uses.
TEST(GradTake, DuplicateIndicesAddUp) {
  const Tensor x = tl::tensor({1.0, 2.0, 3.0, 4.0}, {4});
  const Tensor idx = ints({2, 0, 2, 2, -1}, {5});
  const Tensor g = tl::grad([&](const Tensor& v) { return tl::sum(tl::take(v, idx, 0)); })(x);
  EXPECT_EQ(g.to_vector<double>(), (std::vector<double>{1, 0, 3, 1}));
}

// gather's gradient is a StableHLO scatter, an op with a region, which the engine
// does not differentiate: a second derivative is refused by name, not made zero.
TEST(GradGather, SecondOrderIsRefusedByName) {
  const Tensor idx = ints({3, 1}, {2, 1});
  const tl::detail::Attrs attrs{{"offset_dims", Ints{}},
                                {"collapsed_slice_dims", Ints{0}},
                                {"start_index_map", Ints{0}},
                                {"index_vector_dim", std::int64_t(1)},
                                {"slice_sizes", Ints{1}}};
  const auto f = [&](const Tensor& x) { return tl::sum(tl::square(gather(x, idx, attrs))); };
  const Tensor x = tl::tensor({1.0, 2.0, 3.0, 4.0}, {4});
  EXPECT_EQ(tl::grad(f)(x).to_vector<double>(), (std::vector<double>{0, 4, 0, 8}));
  const auto df = [&](const Tensor& v) { return tl::sum(tl::square(tl::grad(f)(v))); };
  tltest::expect_error_with<tl::NotDifferentiableError>([&] { (void)tl::grad(df)(x); }, {"'scatter'"});
}

}  // namespace
