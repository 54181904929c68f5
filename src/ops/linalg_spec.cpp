// StableHLO's cholesky and triangular_solve on batches of square matrices. Both
// compute in f64 on the host and convert back; the spec leaves the other triangle
// of cholesky's result and the result for a non-positive-definite input
// implementation-defined: here the other triangle is zero and a failed pivot
// gives NaN (never an error: the input's values are data, not a program fault).
#include <cmath>
#include <complex>

#include "core/convert.hpp"
#include "ir/op.hpp"
#include "ops/cpp_spelling.hpp"
#include "ops/rule.hpp"
#include "tlaloc/lax.hpp"
#include "tlaloc/ops.hpp"

namespace tlaloc {
namespace {

using detail::Attrs;
using detail::fail;
using detail::StableHloAttr;
using detail::TensorType;
using Kind = StableHloAttr::Kind;
using Mat = std::vector<double>;

// triangular_solve also takes complex matrices; cholesky real ones only.
void check_square(std::string_view op, const TensorType& a, bool complex_too = false) {
  if (!(complex_too ? is_inexact(a.dtype) : is_floating(a.dtype)))
    fail<DTypeError>(op, "needs a floating-point{} operand, got {}", complex_too ? " or complex" : "",
                     a.dtype);
  const Shape& s = a.shape;
  if (s.size() < 2 || s[s.size() - 1] != s[s.size() - 2])
    fail<ShapeError>(op, "needs square matrices [..., N, N], got {}", shape_string(s));
}

// a = L L^T, L read from and written to m (n x n, row-major).
void cholesky_lower(double* m, std::int64_t n) {
  for (std::int64_t j = 0; j < n; ++j) {
    double d = m[j * n + j];
    for (std::int64_t k = 0; k < j; ++k) d -= m[j * n + k] * m[j * n + k];
    const double l = std::sqrt(d);  // NaN when a is not positive definite
    m[j * n + j] = l;
    for (std::int64_t i = j + 1; i < n; ++i) {
      double s = m[i * n + j];
      for (std::int64_t k = 0; k < j; ++k) s -= m[i * n + k] * m[j * n + k];
      m[i * n + j] = s / l;
    }
    for (std::int64_t k = j + 1; k < n; ++k) m[j * n + k] = 0.0;
  }
}

std::vector<Tensor> cholesky_kernel(std::span<const Tensor> in, const Attrs& attrs,
                                    std::span<const TensorType> out) {
  const bool lower = attrs.has("lower") && attrs.get<bool>("lower");
  const std::int64_t n = in[0].shape().back(), mats = n == 0 ? 0 : in[0].numel() / (n * n);
  Mat v = in[0].to_vector<double>();
  for (std::int64_t b = 0; b < mats; ++b) {
    double* m = v.data() + b * n * n;
    // Upper: a = U^T U with U = L^T, and L is computed from a's upper triangle.
    if (!lower)
      for (std::int64_t i = 0; i < n; ++i)
        for (std::int64_t j = 0; j < i; ++j) m[i * n + j] = m[j * n + i];
    cholesky_lower(m, n);
    if (!lower)
      for (std::int64_t i = 0; i < n; ++i)
        for (std::int64_t j = 0; j < i; ++j) std::swap(m[i * n + j], m[j * n + i]);
  }
  return {tensor(v, out[0].shape).astype(out[0].dtype)};
}

// ---- derivatives --------------------------------------------------------------------
// Both ops read one triangle of a: the rules are the derivatives of exactly that
// (the other triangle gets a zero cotangent).

// x with its last two axes swapped.
Tensor mT(const Tensor& x) {
  std::vector<std::int64_t> perm(std::size_t(x.rank()));
  for (std::size_t i = 0; i < perm.size(); ++i) perm[i] = std::int64_t(i);
  std::swap(perm[perm.size() - 1], perm[perm.size() - 2]);
  return transpose(x, perm);
}

// Row and column indices of an n x n matrix, to build triangle masks.
struct Grid {
  Tensor rows, cols;
  explicit Grid(std::int64_t n) : rows(iota({n, n}, 0)), cols(iota({n, n}, 1)) {}
  Tensor triangle(bool lower, bool strict) const {
    return lower ? (strict ? rows > cols : rows >= cols) : (strict ? rows < cols : rows <= cols);
  }
  // Murray's Phi: the lower triangle with the diagonal halved.
  Tensor phi(const Tensor& x) const { return where(rows > cols, x, where(rows == cols, x * 0.5, 0.0)); }
};

Tensor solve(const Tensor& a, const Tensor& b, bool left, bool lower, bool transpose_a, bool unit = false) {
  static const detail::OpDef& op = *detail::find_op("triangular_solve");
  return detail::call1(op, {a, b},
                       {{"left_side", left},
                        {"lower", lower},
                        {"unit_diagonal", unit},
                        {"transpose_a", std::string(transpose_a ? "TRANSPOSE" : "NO_TRANSPOSE")}});
}

// cholesky (Murray 2016, arXiv:1602.07527), for the factor L of the lower reading;
// the upper reading is its transpose (U = L^T of a^T). With dS the symmetric matrix
// the read triangle stands for, dL = L Phi(L^-1 dS L^-T). Reverse: with
// M = L^-T Phi(L^T gL) L^-1, the symmetric gradient is (M + M^T) / 2, and the read
// triangle collects it twice off the diagonal: Phi(M + M^T).
bool cholesky_lower(const detail::Rule& r) { return r.attrs().has("lower") && r.attr<bool>("lower"); }

std::vector<Tensor> cholesky_jvp(const detail::Rule& r) {
  const bool lower = cholesky_lower(r);
  const Tensor l = lower ? r.out(0) : mT(r.out(0)), da = lower ? r.tangent(0) : mT(r.tangent(0));
  const Grid grid(l.shape().back());
  const Tensor ds = where(grid.triangle(true, false), da, 0.0) + mT(where(grid.triangle(true, true), da, 0.0));
  const Tensor x = solve(l, solve(l, ds, true, true, false), false, true, true);
  const Tensor dl = matmul(l, grid.phi(x));
  return {lower ? dl : mT(dl)};
}

std::vector<Tensor> cholesky_vjp(const detail::Rule& r) {
  const bool lower = cholesky_lower(r);
  const Tensor l = lower ? r.out(0) : mT(r.out(0)), gl = lower ? r.cotangent() : mT(r.cotangent());
  const Grid grid(l.shape().back());
  const Tensor y = solve(l, grid.phi(matmul(mT(l), gl)), true, true, true);
  const Tensor m = solve(l, y, false, true, false);
  const Tensor ga = grid.phi(m + mT(m));
  return {lower ? ga : mT(ga)};
}

const detail::OpDef& cholesky_op =
    detail::def_op("cholesky")
        .inputs(1)
        .shape_rule([](std::span<const TensorType> in, const Attrs&) {
          check_square("cholesky", in[0]);
          return std::vector<TensorType>{in[0]};
        })
        .kernel(cholesky_kernel)
        .jvp(cholesky_jvp)
        .vjp(cholesky_vjp)
        .stablehlo({"stablehlo.cholesky", {StableHloAttr("lower", Kind::boolean).optional()}, "keywords"})
        .cpp([](detail::CppOp& op) {
          const bool lower = op.attrs().has("lower") && op.attrs().get<bool>("lower");
          return detail::cpp_call("tl::lax::cholesky", op, {detail::cpp_bool(lower)});
        });

// ---- triangular_solve ----------------------------------------------------------------

std::vector<TensorType> solve_rule(std::span<const TensorType> in, const Attrs& attrs) {
  check_square("triangular_solve", in[0], true);
  const Shape &as = in[0].shape, &bs = in[1].shape;
  const bool left = attrs.get<bool>("left_side");
  const std::string& t = attrs.get<std::string>("transpose_a");
  if (t != "NO_TRANSPOSE" && t != "TRANSPOSE" && t != "ADJOINT")
    fail<ValueError>("triangular_solve", "transpose_a must be NO_TRANSPOSE, TRANSPOSE or ADJOINT, got {}", t);
  const bool batch_ok = bs.size() == as.size() && std::equal(as.begin(), as.end() - 2, bs.begin());
  const std::int64_t m = as.back();
  if (!batch_ok || (left ? bs[bs.size() - 2] : bs.back()) != m || in[0].dtype != in[1].dtype)
    fail<ShapeError>("triangular_solve", "a {} {} and b {} {} do not fit (left_side = {})", shape_string(as),
                     in[0].dtype, shape_string(bs), in[1].dtype, left);
  return {in[1]};
}

// Solves s y = b for y (s triangular, m x m; b m x k), in place in b.
template <class S>
void substitute(const std::vector<S>& s, bool lower, std::int64_t m, std::int64_t k, S* b) {
  for (std::int64_t step = 0; step < m; ++step) {
    const std::int64_t i = lower ? step : m - 1 - step;
    for (std::int64_t c = 0; c < k; ++c) {
      S v = b[i * k + c];
      for (std::int64_t j = 0; j < m; ++j)
        if (j != i && (lower ? j < i : j > i)) v -= s[std::size_t(i * m + j)] * b[j * k + c];
      b[i * k + c] = v / s[std::size_t(i * m + i)];
    }
  }
}

// op(a) x = b (left side) or x op(a) = b: both become s y = b' with s the chosen
// triangle of a, transposed when op or the side asks (never both). ADJOINT also
// conjugates a complex a. Computes in S: f64, or c128 for complex operands.
template <class S>
std::vector<Tensor> solve_in(std::span<const Tensor> in, const Attrs& attrs,
                             std::span<const TensorType> out) {
  const bool left = attrs.get<bool>("left_side"), lower = attrs.get<bool>("lower");
  const bool unit = attrs.get<bool>("unit_diagonal");
  const std::string& op = attrs.get<std::string>("transpose_a");
  const bool trans = (op != "NO_TRANSPOSE") != !left, conjugate = op == "ADJOINT";
  const Shape& bs = in[1].shape();
  const std::int64_t m = in[0].shape().back(), k = left ? bs.back() : bs[bs.size() - 2];
  const std::int64_t mats = m * k == 0 ? 0 : in[1].numel() / (m * k);
  const DType wide = dtype_v<S>;
  const std::vector<S> a = in[0].astype(wide).to_vector<S>();
  std::vector<S> b = in[1].astype(wide).to_vector<S>(), s(std::size_t(m * m)), y(std::size_t(m * k));
  for (std::int64_t n = 0; n < mats; ++n) {
    for (std::int64_t i = 0; i < m; ++i)
      for (std::int64_t j = 0; j < m; ++j) {
        const bool keep = i == j || (lower ? j < i : j > i);
        S v = i == j && unit ? S(1) : keep ? a[std::size_t((n * m + i) * m + j)] : S(0);
        if constexpr (detail::is_complex_v<S>) v = conjugate ? std::conj(v) : v;
        s[std::size_t(trans ? j * m + i : i * m + j)] = v;
      }
    S* bn = b.data() + n * m * k;
    // The right side works on b^T (m x k).
    for (std::int64_t i = 0; i < m; ++i)
      for (std::int64_t c = 0; c < k; ++c) y[std::size_t(i * k + c)] = left ? bn[i * k + c] : bn[c * m + i];
    substitute(s, lower != trans, m, k, y.data());
    for (std::int64_t i = 0; i < m; ++i)
      for (std::int64_t c = 0; c < k; ++c) (left ? bn[i * k + c] : bn[c * m + i]) = y[std::size_t(i * k + c)];
  }
  return {tensor(b, out[0].shape).astype(out[0].dtype)};
}

std::vector<Tensor> solve_kernel(std::span<const Tensor> in, const Attrs& attrs,
                                 std::span<const TensorType> out) {
  if (is_complex(in[0].dtype())) return solve_in<std::complex<double>>(in, attrs, out);
  return solve_in<double>(in, attrs, out);
}

// triangular_solve: op(s) y = b (left) or y op(s) = b, s the read triangle of a (its
// diagonal taken as ones when unit_diagonal). Then d y = solve(d b - op(d s) y) (or
// d b - y op(d s)), the same op; reverse: g b = the solve with op transposed, and
// g s = -g b y^T, -y g b^T, -y^T g b or -g b^T y (left or right, op or not),
// kept to the read triangle.
struct SolveAttrs {
  bool left, lower, unit, trans;
  explicit SolveAttrs(const detail::Rule& r)
      : left(r.attr<bool>("left_side")),
        lower(r.attr<bool>("lower")),
        unit(r.attr<bool>("unit_diagonal")),
        trans(r.attr<std::string>("transpose_a") != "NO_TRANSPOSE") {}
};

std::vector<Tensor> solve_jvp(const detail::Rule& r) {
  const SolveAttrs s(r);
  Tensor rhs = r.has_tangent(1) ? r.tangent(1) : Tensor();
  if (r.has_tangent(0)) {
    const Grid grid(r.in(0).shape().back());
    Tensor ds = where(grid.triangle(s.lower, s.unit), r.tangent(0), 0.0);
    if (s.trans) ds = mT(ds);
    const Tensor m = s.left ? matmul(ds, r.out(0)) : matmul(r.out(0), ds);
    rhs = rhs.defined() ? rhs - m : -m;
  }
  return {solve(r.in(0), rhs, s.left, s.lower, s.trans, s.unit)};
}

std::vector<Tensor> solve_vjp(const detail::Rule& r) {
  const SolveAttrs s(r);
  const Tensor gb = solve(r.in(0), r.cotangent(), s.left, s.lower, !s.trans, s.unit);
  std::vector<Tensor> g(2);
  if (r.wants(0)) {
    const Tensor& y = r.out(0);
    const Tensor gs = s.left ? (s.trans ? matmul(y, mT(gb)) : matmul(gb, mT(y)))
                             : (s.trans ? matmul(mT(gb), y) : matmul(mT(y), gb));
    const Grid grid(r.in(0).shape().back());
    g[0] = where(grid.triangle(s.lower, s.unit), -gs, 0.0);
  }
  if (r.wants(1)) g[1] = gb;
  return g;
}

const detail::OpDef& triangular_solve_op =
    detail::def_op("triangular_solve")
        .inputs(2)
        .shape_rule(solve_rule)
        .kernel(solve_kernel)
        .jvp(solve_jvp)
        .vjp(solve_vjp)
        .stablehlo({"stablehlo.triangular_solve",
                    {StableHloAttr("left_side", Kind::boolean), StableHloAttr("lower", Kind::boolean),
                     StableHloAttr("unit_diagonal", Kind::boolean),
                     StableHloAttr("transpose_a", Kind::enum_value).of_enum("transpose")},
                    ""})
        .cpp([](detail::CppOp& op) {
          const Attrs& a = op.attrs();
          return detail::cpp_call("tl::lax::triangular_solve", op,
                                  {detail::cpp_bool(a.get<bool>("left_side")), detail::cpp_bool(a.get<bool>("lower")),
                                   detail::cpp_bool(a.get<bool>("unit_diagonal")),
                                   detail::cpp_string(a.get<std::string>("transpose_a"))});
        });

}  // namespace

Tensor lax::cholesky(const Tensor& a, bool lower) { return detail::call1(cholesky_op, {a}, {{"lower", lower}}); }

Tensor lax::triangular_solve(const Tensor& a, const Tensor& b, bool left_side, bool lower, bool unit_diagonal,
                             const std::string& transpose_a) {
  return detail::call1(triangular_solve_op, {a, b},
                       {{"left_side", left_side},
                        {"lower", lower},
                        {"unit_diagonal", unit_diagonal},
                        {"transpose_a", transpose_a}});
}

}  // namespace tlaloc
