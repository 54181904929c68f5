// Rows for the linear algebra: dot_general (its rules, and matmul and outer built
// on it) and StableHLO's cholesky and triangular_solve.
#include "ad/gradcheck.hpp"
#include "ir/op.hpp"

namespace gradcheck {
namespace {

using Fn = std::function<Tensor(std::span<const Tensor>)>;

Case row(std::string name, std::vector<std::string> ops, std::vector<Tensor> xs, Fn fn, std::string torch) {
  Case c{"linalg/" + std::move(name), std::move(ops), std::move(xs), std::move(fn)};
  c.torch = std::move(torch);
  return c;
}

Case product(std::string name, Tensor a, Tensor b, std::string torch = "torch.matmul(a, b)") {
  return row(std::move(name), {"dot_general"}, {std::move(a), std::move(b)},
             [](std::span<const Tensor> x) { return tl::matmul(x[0], x[1]); }, std::move(torch));
}

Tensor call(std::string_view op, std::vector<Tensor> in, const tl::detail::Attrs& attrs) {
  return tl::detail::call1(*tl::detail::find_op(op), std::span<const Tensor>(in), attrs);
}

// A well-conditioned symmetric positive-definite n x n matrix.
Tensor spd(std::int64_t n, std::uint64_t seed) {
  const Tensor m = uniform({n, n}, -1, 1, seed);
  return tl::matmul(m, tl::transpose(m)) + tl::eye(n, -1, 0, tl::DType::f64) * double(n);
}

// A triangular system that stays far from singular: a diagonal in [1.5, 2.5].
Tensor well_posed(std::int64_t n, std::uint64_t seed) {
  return uniform({n, n}, -0.5, 0.5, seed) + tl::eye(n, -1, 0, tl::DType::f64) * 2.0;
}

tl::detail::Attrs solve_attrs(bool left, bool lower, bool unit, const char* transpose) {
  return {{"left_side", left}, {"lower", lower}, {"unit_diagonal", unit}, {"transpose_a", std::string(transpose)}};
}

// The dimension numbers of a batched matmul, [B, M, K] x [B, K, N], and the operand
// whose share dot_general_backward computes.
tl::detail::Attrs batched_dims(std::int64_t operand) {
  using Ints = std::vector<std::int64_t>;
  return {{"lhs_batching_dimensions", Ints{0}},
          {"rhs_batching_dimensions", Ints{0}},
          {"lhs_contracting_dimensions", Ints{2}},
          {"rhs_contracting_dimensions", Ints{1}},
          {"operand", operand}};
}

const bool added = add({
    product("matmul_1d_1d", uniform({4}, -2, 2, 400), uniform({4}, -2, 2, 401)),
    product("matmul_1d_2d", uniform({3}, -2, 2, 402), uniform({3, 4}, -2, 2, 403)),
    product("matmul_2d_1d", uniform({2, 3}, -2, 2, 404), uniform({3}, -2, 2, 405)),
    product("matmul_2d", uniform({2, 3}, -2, 2, 406), uniform({3, 4}, -2, 2, 407)),
    product("matmul_batched_broadcast", uniform({2, 1, 2, 3}, -2, 2, 408), uniform({3, 3, 2}, -2, 2, 409)),
    product("matmul_shared_rhs", uniform({2, 2, 3}, -2, 2, 410), uniform({3, 2}, -2, 2, 411)),
    // The ops tl::matmul and tl::derivatives::matmul_backward record on values of
    // unknown type (a value traced at build time), called here with types known.
    row("matmul_op_batched_broadcast", {"matmul"},
        {uniform({2, 1, 2, 3}, -2, 2, 983), uniform({3, 3, 2}, -2, 2, 984)},
        [](std::span<const Tensor> x) { return call("matmul", {x[0], x[1]}, {}); }, "torch.matmul(a, b)"),
    row("matmul_op_1d_2d", {"matmul"}, {uniform({3}, -2, 2, 985), uniform({3, 4}, -2, 2, 986)},
        [](std::span<const Tensor> x) { return call("matmul", {x[0], x[1]}, {}); }, "torch.matmul(a, b)"),
    // a's share: g against b, summed over the batch axis a broadcasts (a is read for its shape).
    row("matmul_backward_lhs", {"matmul_backward"},
        {uniform({2, 4, 3, 5}, -2, 2, 987), uniform({4, 2, 5}, -2, 2, 988)},
        [](std::span<const Tensor> x) {
          const Tensor a = tl::zeros({2, 1, 3, 2}, tl::DType::f64);
          return call("matmul_backward", {x[0], a, x[1]}, {{"operand", std::int64_t{0}}});
        },
        "(a @ b.mT).sum(1, keepdim=True)"),
    // b's share where a is 1-D: the outer product of a and g (b is read for its shape).
    row("matmul_backward_rhs", {"matmul_backward"}, {uniform({4}, -2, 2, 989), uniform({3}, -2, 2, 990)},
        [](std::span<const Tensor> x) {
          const Tensor b = tl::zeros({3, 4}, tl::DType::f64);
          return call("matmul_backward", {x[0], x[1], b}, {{"operand", std::int64_t{1}}});
        },
        "torch.outer(b, a)"),
    // dot_general_backward's op, batched [2, 3, 4] x [2, 4, 5]: a's share g @ b.mT, and
    // b's share a.mT @ g (the operand whose share it is read for its shape only).
    row("dot_general_backward_lhs", {"dot_general_backward"},
        {uniform({2, 3, 5}, -2, 2, 991), uniform({2, 4, 5}, -2, 2, 992)},
        [](std::span<const Tensor> x) {
          const Tensor a = tl::zeros({2, 3, 4}, tl::DType::f64);
          return call("dot_general_backward", {x[0], a, x[1]}, batched_dims(0));
        },
        "a @ b.mT"),
    row("dot_general_backward_rhs", {"dot_general_backward"},
        {uniform({2, 3, 5}, -2, 2, 993), uniform({2, 3, 4}, -2, 2, 994)},
        [](std::span<const Tensor> x) {
          const Tensor b = tl::zeros({2, 4, 5}, tl::DType::f64);
          return call("dot_general_backward", {x[0], x[1], b}, batched_dims(1));
        },
        "b.mT @ a"),
    row("dot_general_dims", {"dot_general"}, {uniform({3, 2, 4}, -2, 2, 412), uniform({4, 2, 3}, -2, 2, 413)},
        [](std::span<const Tensor> x) { return tl::dot_general(x[0], x[1], {{1}, {1}, {2, 0}, {0, 2}}); },
        "torch.einsum('kbi,ibk->b', a, b)"),
    row("outer", {"mul"}, {uniform({3}, -2, 2, 414), uniform({4}, -2, 2, 415)},
        [](std::span<const Tensor> x) { return tl::outer(x[0], x[1]); }, "torch.outer(a, b)"),
    // Symmetrized, as PyTorch's gradient assumes; the op itself reads one triangle.
    row("cholesky_symmetric", {"cholesky"}, {spd(3, 416)},
        [](std::span<const Tensor> x) {
          return call("cholesky", {(x[0] + tl::transpose(x[0])) * 0.5}, {{"lower", true}});
        },
        "torch.linalg.cholesky((a + a.mT) / 2)"),
    // The upper reading, batched, straight on the op: the lower triangle gets zeros.
    row("cholesky_upper_batched", {"cholesky"}, {tl::stack({spd(3, 417), spd(3, 418)})},
        [](std::span<const Tensor> x) { return call("cholesky", {x[0]}, {{"lower", false}}); },
        "torch.linalg.cholesky(a.triu() + a.triu(1).mT, upper=True)"),
    row("triangular_solve_left_lower", {"triangular_solve"}, {well_posed(3, 419), uniform({3, 2}, -2, 2, 420)},
        [](std::span<const Tensor> x) { return call("triangular_solve", {x[0], x[1]}, solve_attrs(true, true, false, "NO_TRANSPOSE")); },
        "torch.linalg.solve_triangular(a.tril(), b, upper=False)"),
    row("triangular_solve_left_upper_transpose", {"triangular_solve"}, {well_posed(3, 421), uniform({3, 2}, -2, 2, 422)},
        [](std::span<const Tensor> x) { return call("triangular_solve", {x[0], x[1]}, solve_attrs(true, false, false, "TRANSPOSE")); },
        "torch.linalg.solve_triangular(a.triu().mT, b, upper=False)"),
    row("triangular_solve_right_lower_transpose", {"triangular_solve"}, {well_posed(3, 423), uniform({2, 3}, -2, 2, 424)},
        [](std::span<const Tensor> x) { return call("triangular_solve", {x[0], x[1]}, solve_attrs(false, true, false, "TRANSPOSE")); },
        "torch.linalg.solve_triangular(a.tril().mT, b, upper=True, left=False)"),
    row("triangular_solve_right_upper_unit_batched", {"triangular_solve"},
        {tl::stack({well_posed(3, 425), well_posed(3, 426)}), uniform({2, 2, 3}, -2, 2, 427)},
        [](std::span<const Tensor> x) { return call("triangular_solve", {x[0], x[1]}, solve_attrs(false, false, true, "NO_TRANSPOSE")); },
        "torch.linalg.solve_triangular(a, b, upper=True, left=False, unitriangular=True)"),
});

}  // namespace
}  // namespace gradcheck
