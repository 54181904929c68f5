// Rows for the reductions and scans (reduce_sum/max/min/prod, cumsum, cumprod) and
// the statistics composed from them (mean, var, std, logsumexp).
#include "ad/gradcheck.hpp"

namespace gradcheck {
namespace {

using Fn = std::function<Tensor(std::span<const Tensor>)>;

Case row(std::string name, std::vector<std::string> ops, Tensor x, Fn fn, std::string torch, bool second = true) {
  Case c{"reduce/" + std::move(name), std::move(ops), {std::move(x)}, std::move(fn), second};
  c.torch = std::move(torch);
  return c;
}

// x with the listed flat positions set to zero.
Tensor with_zeros(const Tensor& x, std::vector<std::int64_t> at) {
  std::vector<double> v = x.to_vector<double>();
  for (auto i : at) v[std::size_t(i)] = 0.0;
  return tl::tensor(v, x.shape());
}

const tl::Shape s234{2, 3, 4};

const bool added = add({
    row("sum_axis", {"reduce_sum"}, uniform(s234, -2, 2, 200), [](std::span<const Tensor> a) { return tl::sum(a[0], 1); },
        "torch.sum(a, dim=1)"),
    row("sum_all_keepdims", {"reduce_sum"}, uniform({2, 3}, -2, 2, 201),
        [](std::span<const Tensor> a) { return tl::sum(a[0], {}, true); }, "torch.sum(a).reshape(1, 1)"),
    row("max", {"reduce_max"}, uniform(s234, -2, 2, 202), [](std::span<const Tensor> a) { return tl::max(a[0], {0, 2}); },
        "torch.amax(a, dim=(0, 2))"),
    row("min", {"reduce_min"}, uniform(s234, -2, 2, 203), [](std::span<const Tensor> a) { return tl::min(a[0], 2, true); },
        "torch.amin(a, dim=2, keepdim=True)"),
    row("prod_axis", {"reduce_prod"}, uniform(s234, 0.5, 1.5, 204),
        [](std::span<const Tensor> a) { return tl::prod(a[0], 2); }, "torch.prod(a, dim=2)"),
    row("prod_axes_0_2", {"reduce_prod"}, uniform(s234, 0.6, 1.4, 205),
        [](std::span<const Tensor> a) { return tl::prod(a[0], {0, 2}, true); }, "a.prod(2, keepdim=True).prod(0, keepdim=True)"),
    // Zeros: one in the first lane, two in the second (whose derivatives are then
    // all zero).
    row("prod_zeros", {"reduce_prod"}, with_zeros(uniform({3, 4}, 0.5, 1.5, 206), {1, 4, 6}),
        [](std::span<const Tensor> a) { return tl::prod(a[0], 1); }, "torch.prod(a, dim=1)"),
    row("prod_all", {"reduce_prod"}, uniform({2, 3}, 0.5, 1.5, 207), [](std::span<const Tensor> a) { return tl::prod(a[0]); },
        "torch.prod(a)"),
    row("cumsum_axis0", {"cumsum"}, uniform(s234, -2, 2, 208), [](std::span<const Tensor> a) { return tl::cumsum(a[0], 0); },
        "torch.cumsum(a, dim=0)"),
    row("cumsum_last", {"cumsum"}, uniform({3, 5}, -2, 2, 209), [](std::span<const Tensor> a) { return tl::cumsum(a[0], -1); },
        "torch.cumsum(a, dim=-1)"),
    row("cumprod", {"cumprod"}, away_from_zero({3, 5}, 210), [](std::span<const Tensor> a) { return tl::cumprod(a[0], 1); },
        "torch.cumprod(a, dim=1)"),
    // Exact zeros (first, middle, two in a lane, last), to second order.
    row("cumprod_zeros", {"cumprod"}, with_zeros(away_from_zero({4, 5}, 211), {0, 7, 11, 13, 19}),
        [](std::span<const Tensor> a) { return tl::cumprod(a[0], 1); }, "torch.cumprod(a, dim=1)"),
    row("cumprod_axis0", {"cumprod"}, uniform({4, 3}, 0.5, 1.5, 212),
        [](std::span<const Tensor> a) { return tl::cumprod(a[0], 0); }, "torch.cumprod(a, dim=0)"),
    row("mean", {"reduce_sum"}, uniform(s234, -2, 2, 213), [](std::span<const Tensor> a) { return tl::mean(a[0], {0, 2}); },
        "torch.mean(a, dim=(0, 2))"),
    row("var", {"reduce_sum"}, uniform(s234, -2, 2, 214), [](std::span<const Tensor> a) { return tl::var(a[0], 2); },
        "torch.var(a, dim=2, unbiased=False)"),
    row("var_ddof1", {"reduce_sum"}, uniform(s234, -2, 2, 215),
        [](std::span<const Tensor> a) { return tl::var(a[0], {1, 2}, true, 1); }, "torch.var(a, dim=(1, 2), unbiased=True, keepdim=True)"),
    row("std", {"reduce_sum", "sqrt"}, uniform(s234, -2, 2, 216), [](std::span<const Tensor> a) { return tl::std(a[0], 1); },
        "torch.std(a, dim=1, unbiased=False)"),
    row("std_ddof1", {"reduce_sum", "sqrt"}, uniform(s234, -2, 2, 217),
        [](std::span<const Tensor> a) { return tl::std(a[0], 2, false, 1); }, "torch.std(a, dim=2, unbiased=True)"),
    row("logsumexp", {"reduce_max", "reduce_sum", "exp", "log"}, uniform(s234, -3, 3, 218),
        [](std::span<const Tensor> a) { return tl::logsumexp(a[0], 1); }, "torch.logsumexp(a, dim=1)"),
});

}  // namespace
}  // namespace gradcheck
