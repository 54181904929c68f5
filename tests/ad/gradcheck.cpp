#include "ad/gradcheck.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

namespace gradcheck {

namespace {

using Flat = std::function<std::vector<Tensor>(std::span<const Tensor>)>;

double dot(const Tensor& a, const Tensor& b) { return tl::sum(a.astype(tl::DType::f64) * b.astype(tl::DType::f64)).item<double>(); }

bool is_diff(const Tensor& t) { return t.dtype() == tl::DType::f64 || t.dtype() == tl::DType::f32; }

// x with element i of input k moved by h.
std::vector<Tensor> nudged(const std::vector<Tensor>& xs, std::size_t k, std::int64_t i, double h) {
  std::vector<Tensor> out = xs;
  const Tensor e = tl::reshape(tl::one_hot(tl::scalar_tensor(i, tl::DType::i64), xs[k].numel(), tl::DType::f64),
                               xs[k].shape());
  out[k] = xs[k] + h * e;
  return out;
}

// d/dx_k,i of s(x) by central differences, for every differentiable input.
std::vector<Tensor> numeric_gradient(const std::function<double(const std::vector<Tensor>&)>& s,
                                     const std::vector<Tensor>& xs, double h) {
  std::vector<Tensor> g(xs.size());
  for (std::size_t k = 0; k < xs.size(); ++k) {
    if (!is_diff(xs[k])) continue;
    std::vector<double> v(std::size_t(xs[k].numel()));
    for (std::int64_t i = 0; i < xs[k].numel(); ++i)
      v[std::size_t(i)] = (s(nudged(xs, k, i, h)) - s(nudged(xs, k, i, -h))) / (2 * h);
    g[k] = tl::tensor(v, xs[k].shape());
  }
  return g;
}

void expect_near(const Tensor& got, const Tensor& want, double tol, const std::string& what) {
  ASSERT_TRUE(got.defined()) << what << ": no derivative";
  ASSERT_EQ(got.shape(), want.shape()) << what;
  const auto a = got.to_vector<double>(), b = want.to_vector<double>();
  for (std::size_t i = 0; i < a.size(); ++i)
    EXPECT_NEAR(a[i], b[i], tol * (1 + std::abs(b[i]))) << what << " at element " << i;
}

Flat flat_of(const Case& c) {
  return [&c](std::span<const Tensor> xs) { return std::vector<Tensor>{c.fn(xs)}; };
}

std::vector<Tensor> pullback(const Flat& f, const std::vector<Tensor>& xs, const Tensor& u) {
  auto [out, state] = tl::detail::run_vjp(f, xs);
  const Tensor us[] = {u};
  return tl::detail::run_pullback(*state, us);
}

class GradCheck : public testing::TestWithParam<std::size_t> {};

TEST_P(GradCheck, AgreesWithFiniteDifferences) {
  const Case& c = table()[GetParam()];
  const Flat f = flat_of(c);
  const std::vector<Tensor>& xs = c.inputs;
  const Tensor y = c.fn(xs);
  ASSERT_TRUE(tl::is_floating(y.dtype())) << c.name << " returns " << tl::dtype_name(y.dtype());
  const Tensor u = uniform(y.shape(), -1, 1, 7).astype(y.dtype());
  const auto s = [&](const std::vector<Tensor>& x) { return dot(c.fn(x), u); };

  // Reverse mode.
  const std::vector<Tensor> g = pullback(f, xs, u);
  const std::vector<Tensor> fd = numeric_gradient(s, xs, c.h);
  for (std::size_t k = 0; k < xs.size(); ++k)
    if (is_diff(xs[k])) expect_near(g[k], fd[k], c.tol, c.name + ": vjp of input " + std::to_string(k));

  // Forward mode, and the transpose identity.
  std::vector<Tensor> v, prim;
  for (std::size_t k = 0; k < xs.size(); ++k)
    if (is_diff(xs[k])) v.push_back(uniform(xs[k].shape(), -1, 1, 100 + k));
  const Flat f_diff = [&](std::span<const Tensor> d) {
    std::vector<Tensor> all = xs;
    std::size_t j = 0;
    for (std::size_t k = 0; k < xs.size(); ++k)
      if (is_diff(xs[k])) all[k] = d[j++];
    return f(all);
  };
  for (std::size_t k = 0; k < xs.size(); ++k)
    if (is_diff(xs[k])) prim.push_back(xs[k]);
  const std::vector<Tensor> jv = tl::detail::run_jvp(f_diff, prim, v);
  const double h = c.h;
  std::vector<Tensor> plus = prim, minus = prim;
  for (std::size_t j = 0; j < prim.size(); ++j) {
    plus[j] = prim[j] + h * v[j];
    minus[j] = prim[j] - h * v[j];
  }
  const Tensor fd_jvp = (f_diff(plus)[0].astype(tl::DType::f64) - f_diff(minus)[0].astype(tl::DType::f64)) / (2 * h);
  expect_near(jv[1].astype(tl::DType::f64), fd_jvp, c.tol, c.name + ": jvp");
  double lhs = dot(u, jv[1]), rhs = 0;
  std::size_t j = 0;
  for (std::size_t k = 0; k < xs.size(); ++k)
    if (is_diff(xs[k])) rhs += dot(g[k], v[j++]);
  EXPECT_NEAR(lhs, rhs, c.tol * 1e-4 * (1 + std::abs(rhs))) << c.name << ": <u, jvp(v)> != <vjp(u), v>";

  if (c.second_order) {
    // Reverse over reverse: the gradient of <vjp(u)(x), w>.
    const double h2 = std::max(c.h, 1e-4);
    std::vector<Tensor> w;
    for (std::size_t k = 0; k < xs.size(); ++k) w.push_back(is_diff(xs[k]) ? uniform(xs[k].shape(), -1, 1, 300 + k) : Tensor());
    const Flat second = [&](std::span<const Tensor> x) {
      const std::vector<Tensor> gx = pullback(f, std::vector<Tensor>(x.begin(), x.end()), u);
      Tensor acc = tl::scalar_tensor(0.0, tl::DType::f64);
      for (std::size_t k = 0; k < gx.size(); ++k)
        if (w[k].defined()) acc = acc + tl::sum(gx[k].astype(tl::DType::f64) * w[k]);
      return std::vector<Tensor>{acc};
    };
    const std::vector<Tensor> g2 = pullback(second, xs, tl::scalar_tensor(1.0, tl::DType::f64));
    const std::vector<Tensor> fd2 =
        numeric_gradient([&](const std::vector<Tensor>& x) { return second(x)[0].item<double>(); }, xs, h2);
    for (std::size_t k = 0; k < xs.size(); ++k)
      if (is_diff(xs[k])) expect_near(g2[k], fd2[k], std::max(1e-5, c.tol), c.name + ": second order (vjp of vjp), input " + std::to_string(k));
    // Forward over reverse: jvp of the same scalar's gradient direction.
    const std::vector<Tensor> hv = tl::detail::run_jvp(
        [&](std::span<const Tensor> d) {
          std::vector<Tensor> all = xs;
          std::size_t jj = 0;
          for (std::size_t k = 0; k < xs.size(); ++k)
            if (is_diff(xs[k])) all[k] = d[jj++];
          return second(all);
        },
        prim, v);
    double fd_hv = 0;
    {
      std::vector<Tensor> p = xs, m = xs;
      std::size_t jj = 0;
      for (std::size_t k = 0; k < xs.size(); ++k)
        if (is_diff(xs[k])) {
          p[k] = xs[k] + h2 * v[jj];
          m[k] = xs[k] - h2 * v[jj++];
        }
      fd_hv = (second(p)[0].item<double>() - second(m)[0].item<double>()) / (2 * h2);
    }
    EXPECT_NEAR(hv[1].item<double>(), fd_hv, std::max(1e-5, c.tol) * (1 + std::abs(fd_hv))) << c.name << ": jvp of vjp";
  }

  if (c.f32) {
    std::vector<Tensor> x32 = xs;
    for (Tensor& x : x32)
      if (x.dtype() == tl::DType::f64) x = x.astype(tl::DType::f32);
    const Tensor y32 = c.fn(x32);
    if (y32.dtype() == tl::DType::f32) {
      const std::vector<Tensor> g32 = pullback(f, x32, u.astype(tl::DType::f32));
      for (std::size_t k = 0; k < xs.size(); ++k)
        if (is_diff(xs[k])) {
          ASSERT_EQ(g32[k].dtype(), tl::DType::f32) << c.name;
          expect_near(g32[k].astype(tl::DType::f64), g[k], 2e-3, c.name + ": f32 vjp of input " + std::to_string(k));
        }
    }
  }
}

std::string case_name(const testing::TestParamInfo<std::size_t>& info) {
  std::string n = table()[info.param].name;
  for (char& ch : n)
    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  return n;
}

std::vector<std::size_t> indices() {
  std::vector<std::size_t> v(table().size());
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = i;
  return v;
}

INSTANTIATE_TEST_SUITE_P(Table, GradCheck, testing::ValuesIn(indices()), case_name);

}  // namespace
}  // namespace gradcheck
