// Functions differentiated by tl::grad, built twice (tests/grad_tool/CMakeLists.txt): as written (tl::grad
// traces at run time) and through tlaloc-grad (each call replaced by C++ written at build time). Both
// builds print every gradient's bits, which must be equal, and check them against central differences.
#include <tlaloc/derivatives.hpp>
#include <tlaloc/nn.hpp>
#include <tlaloc/tlaloc.hpp>

#include <cmath>
#include <cstdio>
#include <string>

namespace tl = tlaloc;

namespace {

tl::Tensor layer(const tl::Tensor& x, const tl::Tensor& w, const tl::Tensor& b) {
  return tl::tanh(tl::matmul(x, w) + b);
}

tl::Tensor damped(const tl::Tensor& v, double k) { return v * k - tl::sqrt(v * v + 1.0) / 2.0; }

tl::Tensor ramp(const tl::Tensor& x) {
  if (x.numel() > 100) return tl::sum(x);
  return tl::sum(tl::where(x > 0.0, x, x * 0.1));
}

// A model's output layer, read from its Params by name.
tl::Tensor head(const tl::nn::Params& p, const tl::Tensor& h) {
  return tl::matmul(h, p.at("out.weight")) * p.at("scale");
}

// A user's enumeration and settings, which generated gradients and Hessians name.
enum class Curve { bowl, saddle };
struct Weights {
  double a, b;
};
tl::Tensor shaped(const tl::Tensor& x, const Weights& k, Curve c) {
  const tl::Tensor s = tl::sum(tl::sin(x) * x);
  return c == Curve::saddle ? s * k.a - tl::sum(x * x) * k.b : s * k.a;
}

int failures = 0;

// Prints g's bits, and compares g with central differences of f at x.
template <class F>
void report(const std::string& name, const tl::Tensor& g, F f, const tl::Tensor& x) {
  const double* d = g.data<double>();
  std::printf("%s:", name.c_str());
  for (std::int64_t i = 0; i < g.numel(); ++i) std::printf(" %a", d[i]);
  std::printf("\n");
  const double h = 1e-6;
  const std::vector<double> at = x.to_vector<double>();
  for (std::size_t i = 0; i < at.size(); ++i) {
    std::vector<double> up = at, down = at;
    up[i] += h;
    down[i] -= h;
    const double fd = (f(tl::tensor(up, x.shape())).template item<double>() -
                       f(tl::tensor(down, x.shape())).template item<double>()) / (2 * h);
    if (std::abs(fd - d[i]) > 1e-6 * (1 + std::abs(fd))) {
      std::printf("FAIL %s: element %zu: gradient %.17g, central difference %.17g\n", name.c_str(), i, d[i], fd);
      ++failures;
    }
  }
}

// x and two points near it. A sum whose terms can be added in two orders may give the
// same bits both ways at one point by luck of rounding; at three, rarely.
std::vector<tl::Tensor> points_near(const tl::Tensor& x) { return {x, x * 1.27 - 0.137, x * -0.61 + 0.413}; }

std::string at_point(const std::string& name, std::size_t k) {
  return k == 0 ? name : name + " at point " + std::to_string(k + 1);
}

// report() at each of points_near(x).
template <class G, class F>
void report_near(const std::string& name, G gradient, F f, const tl::Tensor& x) {
  const std::vector<tl::Tensor> points = points_near(x);
  for (std::size_t k = 0; k < points.size(); ++k)
    report(at_point(name, k), gradient(points[k]), f, points[k]);
}

}  // namespace

int main() {
  const auto f64 = [](std::vector<double> v, tl::Shape s) { return tl::tensor(v, s); };
  const tl::Tensor w = f64({0.1, -0.2, 0.3, 0.4, 0.5, -0.6}, {3, 2});
  const tl::Tensor x = f64({1, 2, 3, -1, 0.5, 2}, {2, 3});
  const tl::Tensor b = f64({0.1, 0.2}, {2});
  const double scale = 0.5;

  // Calls of functions with visible bodies, a branch on a scalar, and broadcasting.
  auto mlp = [&](const tl::Tensor& wt) {
    const tl::Tensor h = layer(x, wt, b);
    auto y = tl::sum(h * h) * scale;
    if (scale > 1.0) return y * 2.0;
    return tl::mean(tl::exp(h)) + y - tl::sum(tl::sigmoid(h) / (b + 2.0));
  };
  report_near("mlp", tl::grad(mlp), mlp, w);

  // A loop with a run-time bound: the reverse sweep walks the saved iterations.
  int steps = 5;  // not const: Clang says a constant needs no capture
  auto rolled = [steps](const tl::Tensor& p) {
    tl::Tensor s = p;
    for (int i = 0; i < steps; ++i) s = tl::sin(s) * p + 0.1 * i;
    return tl::sum(s);
  };
  report_near("rolled", tl::grad(rolled), rolled, w);

  // Two carried values, ?:, reductions over an axis, and a helper taking a scalar.
  auto physics = [](const tl::Tensor& v0) {
    tl::Tensor v = v0;
    tl::Tensor pos = tl::zeros_like(v0);
    const int n = 4;
    for (int i = 0; i < n; ++i) {
      pos = pos + v * 0.25;
      v = damped(v, 0.9);
    }
    const tl::Tensor spread = n > 2 ? tl::sum(pos, {1}, true) : tl::mean(pos, {0});
    return tl::sum(tl::log(tl::square(spread) + 1.0)) + tl::sum(tl::mean(tl::softplus(pos), {0}));
  };
  report_near("physics", tl::grad(physics), physics, x);

  // A while loop, whose counter the reverse sweep restores per iteration.
  auto settle = [](const tl::Tensor& a) {
    tl::Tensor s = a;
    int n = 0;
    double t = 0.5;
    while (n < 6) {
      s = tl::cos(s) * a + t;
      n += 1;
      t = t * 0.5;
    }
    return tl::sum(s * s);
  };
  report_near("settle", tl::grad(settle), settle, w);

  auto rows = [](const tl::Tensor& m) {
    const tl::Tensor r = tl::sum(m, {1});
    const tl::Tensor c = tl::mean(m, {0}, true);
    return tl::sum(tl::relu(r) * r) + tl::sum(tl::transpose(m) * tl::reshape(c, {2, 1})) + ramp(m) / 3.0;
  };
  report_near("rows", tl::grad(rows), rows, w);

  // Nested loops: an outer step with inner substeps, each saving its iterations.
  auto nested = [](const tl::Tensor& p) {
    tl::Tensor s = p;
    for (int i = 0; i < 3; ++i) {
      tl::Tensor v = s * 0.5;
      for (int j = 0; j < 2; ++j) v = tl::sin(v) + s * (0.1 * j);
      s = s + v * p;
    }
    return tl::sum(s * s);
  };
  report_near("nested", tl::grad(nested), nested, w);
  auto [nested_value, nested_dot] = tl::jvp(nested, w, tl::ones_like(w));
  std::printf("nested jvp: %a %a\n", nested_value.item<double>(), nested_dot.item<double>());

  // Losses built from the shifted exponentials: log_softmax, softmax, logsumexp.
  const tl::Tensor labels = f64({1, 0, 0, 1}, {2, 2});
  auto classify = [&](const tl::Tensor& logits) {
    const tl::Tensor z = tl::matmul(x, logits);
    const tl::Tensor picked = tl::log_softmax(z, 1) * labels;
    return -tl::sum(picked) + tl::sum(tl::softmax(z) * z) + tl::sum(tl::logsumexp(z, {0})) + tl::logsumexp(z);
  };
  report_near("classify", tl::grad(classify), classify, w);

  // maximum, minimum and pow, with tensor and scalar operands.
  auto extremes = [&](const tl::Tensor& m) {
    const tl::Tensor clipped = tl::minimum(tl::maximum(m, -0.15), m * 0.5 + 0.1);
    return tl::sum(tl::pow(tl::square(clipped) + 1.0, 1.5) + tl::pow(2.0, m) + tl::maximum(m, tl::transpose(x)));
  };
  report_near("extremes", tl::grad(extremes), extremes, w);

  // Forward mode: the derivative along a direction, against the gradient's projection.
  const tl::Tensor direction = f64({1, -0.5, 0.25, 2, 0, -1}, {2, 3});
  auto [y, dy] = tl::jvp(physics, x, direction);
  std::printf("jvp: %a %a\n", y.item<double>(), dy.item<double>());
  const double projected = tl::sum(tl::grad(physics)(x) * direction).item<double>();
  if (std::abs(projected - dy.item<double>()) > 1e-12 * (1 + std::abs(projected))) {
    std::printf("FAIL jvp: %.17g, the gradient's projection %.17g\n", dy.item<double>(), projected);
    ++failures;
  }
  auto [ys, dys] = tl::jvp(settle, w, tl::ones_like(w));
  std::printf("jvp settle: %a %a\n", ys.item<double>(), dys.item<double>());

  const tl::Tensor weights = f64({0.5, -1, 2, 0.25, 1, -0.75}, {3, 2});
  // Functions with their own rules: a custom_vjp log whose derivative keeps away from
  // zero, and a custom_jvp softplus.
  const auto safe_log = tl::custom_vjp(
      [](const tl::Tensor& v) { return tl::log(v); },
      [](const tl::Tensor& v) { return std::pair{tl::log(v), std::vector<tl::Tensor>{v}}; },
      [](const std::vector<tl::Tensor>& res, const tl::Tensor& ct) {
        return std::vector<tl::Tensor>{ct / tl::maximum(res[0], 1e-3)};
      });
  auto logged = [&](const tl::Tensor& m) { return tl::sum(safe_log(tl::square(m) + 0.5) * m); };
  report_near("custom_vjp", tl::grad(logged), logged, w);
  const auto soft = tl::custom_jvp([](const tl::Tensor& v) { return tl::softplus(v); },
                                   [](const std::vector<tl::Tensor>& p, const std::vector<tl::Tensor>& t) {
                                     return std::pair{tl::softplus(p[0]), tl::sigmoid(p[0]) * t[0]};
                                   });
  auto smooth = [&](const tl::Tensor& m) { return tl::sum(soft(m * 2.0) * m); };
  auto [smooth_value, smooth_dot] = tl::jvp(smooth, w, weights);
  std::printf("custom_jvp: %a %a\n", smooth_value.item<double>(), smooth_dot.item<double>());

  // Reverse mode from any cotangent: tl::vjp's pullback, against the gradient of the
  // cotangent-weighted sum.
  auto field = [](const tl::Tensor& q) {
    tl::Tensor s = q;
    for (int i = 0; i < 3; ++i) s = tl::tanh(s) * q;
    return s;
  };
  auto [field_value, pullback] = tl::vjp(field, w);
  const tl::Tensor pulled = pullback(weights).at(0);
  auto weighted = [&](const tl::Tensor& q) { return tl::sum(field(q) * weights); };
  report("vjp", pulled, weighted, w);
  std::printf("vjp value: %a\n", tl::sum(field_value).item<double>());

  // The structured control flow of tlaloc/control.hpp. Traced, each is one op with
  // regions, whose rule sums a region's shares of what it uses from outside before
  // adding them there: the parameter is used twice in each region to show that order.
  auto chosen = [&](const tl::Tensor& m) {
    const tl::Tensor total = tl::sum(m);
    const tl::Tensor picked =
        tl::cond(total > 0.0, [&] { return tl::tanh(m) * m + m; }, [&] { return m * m * 0.5 - m; });
    return tl::sum(picked * m);
  };
  report_near("cond", tl::grad(chosen), chosen, w);
  report_near("cond else", tl::grad(chosen), chosen, -w);
  auto stepped = [&](const tl::Tensor& m) {
    const tl::Tensor out = tl::fori_loop(
        0, 4,
        [&](const tl::Tensor& i, const tl::Tensor& c) { return tl::sin(c) * m + m * i.astype(tl::DType::f64) * 0.1; },
        m * 0.5);
    return tl::sum(out * out) + tl::sum(tl::fori_loop(2, 2, [&](const tl::Tensor&, const tl::Tensor& c) { return c * m; }, m));
  };
  report_near("fori_loop", tl::grad(stepped), stepped, w);
  // Lambdas the function defines, passed by name and called.
  auto relaxed = [&](const tl::Tensor& m) {
    const auto small = [](const tl::Tensor& c) { return tl::sum(c * c) < 4.0; };
    const auto grow = [&](const tl::Tensor& c) { return c * 1.3 + m * tl::cos(m); };
    const tl::Tensor out = tl::while_loop(small, grow, m);
    return tl::sum(out * m) + tl::sum(grow(m * 0.5));
  };
  report_near("while_loop", tl::grad(relaxed), relaxed, w);
  auto [chosen_value, chosen_dot] = tl::jvp(chosen, w, weights);
  std::printf("cond jvp: %a %a\n", chosen_value.item<double>(), chosen_dot.item<double>());
  auto [stepped_value, stepped_dot] = tl::jvp(stepped, w, weights);
  std::printf("fori_loop jvp: %a %a\n", stepped_value.item<double>(), stepped_dot.item<double>());
  auto [relaxed_value, relaxed_dot] = tl::jvp(relaxed, w, weights);
  std::printf("while_loop jvp: %a %a\n", relaxed_value.item<double>(), relaxed_dot.item<double>());

  // Loops inside branches (also inside a loop), and functions with custom rules in
  // loops and branches: their forward halves are kept per iteration.
  auto branchy = [&](const tl::Tensor& m) {
    tl::Tensor s = m;
    for (int i = 0; i < 2; ++i) {
      if (i == 1) {
        for (int j = 0; j < 2; ++j) s = safe_log(tl::square(s) + 0.5) * m + s;
      } else {
        s = safe_log(s * s + 1.0) + s * m;
      }
    }
    if (scale < 1.0) {
      for (int j = 0; j < 3; ++j) s = tl::tanh(s) + m * 0.5;
    }
    return tl::sum(s * s);
  };
  report_near("branchy", tl::grad(branchy), branchy, w);
  auto soft_steps = [&](const tl::Tensor& m) {
    tl::Tensor s = m;
    if (scale < 1.0) {
      for (int j = 0; j < 3; ++j) s = soft(s * m) + s;
    }
    return tl::sum(s);
  };
  auto [soft_value, soft_dot] = tl::jvp(soft_steps, w, weights);
  std::printf("custom_jvp in a loop: %a %a\n", soft_value.item<double>(), soft_dot.item<double>());

  // tl::scan over the rows of the parameter, forward and reversed: the carry, each
  // step's slice and output, and the parameter also used inside.
  auto scanned = [&](const tl::Tensor& m) {
    const tl::Tensor start = tl::sum(m, {0}) * 0.1;
    auto [last, outs] = tl::scan(
        [&](const tl::Tensor& c, const tl::Tensor& row) {
          const tl::Tensor next = tl::tanh(c * row + b) + tl::mean(m, {0}) * c;
          return std::pair{next, next * row};
        },
        start, m);
    const tl::Tensor back =
        tl::scan([](const tl::Tensor& c, const tl::Tensor& o) { return std::make_pair(c + o * c, tl::sin(o)); }, last, outs,
                 true)
            .first;
    return tl::sum(last * last) + tl::sum(outs * outs) + tl::sum(back);
  };
  report_near("scan", tl::grad(scanned), scanned, w);
  auto [scanned_value, scanned_dot] = tl::jvp(scanned, w, weights);
  std::printf("scan jvp: %a %a\n", scanned_value.item<double>(), scanned_dot.item<double>());

  // `if (c) break;` as the first or the last statement of a loop's body.
  auto stopping = [](const tl::Tensor& a) {
    tl::Tensor s = a;
    double t = 1.0;
    for (int i = 0; i < 100; ++i) {
      if (t < 0.1) break;
      s = tl::sin(s) * a + t;
      t = t * 0.5;
    }
    int n = 0;
    while (true) {
      s = tl::cos(s) + a * 0.5;
      n += 1;
      if (n >= 3) break;
    }
    return tl::sum(s * s);
  };
  report_near("break", tl::grad(stopping), stopping, w);
  // `if (c) continue;` and `if (c) break;` in the middle of a body: the rest of the
  // body becomes a branch.
  auto skipping = [](const tl::Tensor& a) {
    tl::Tensor s = a;
    for (int i = 0; i < 6; ++i) {
      s = s * 0.9 + a;
      if (i % 2 == 1) continue;
      s = tl::sin(s) * a;
    }
    for (int i = 0; i < 6; ++i) {
      s = tl::cos(s) + a;
      if (i == 2) break;
      s = s * 0.5;
    }
    return tl::sum(s * s);
  };
  report_near("continue", tl::grad(skipping), skipping, w);

  // A custom_jvp function in reverse mode: its JVP rule, linear in the tangent, is
  // transposed (as the engine does).
  report_near("custom_jvp reverse", tl::grad(smooth), smooth, w);

  // clamp (maximum then minimum), squeeze and expand_dims, and max and min over axes
  // with a tie.
  const tl::Tensor tied = f64({0.5, 0.5, -0.2, 0.3, 0.3, 0.1}, {3, 2});
  auto ranged = [&](const tl::Tensor& m) {
    const tl::Tensor c = tl::clamp(m * 2.0, -0.5, 0.7) + tl::clamp(m, tl::transpose(x) * 0.07, m * m + 0.3);
    const tl::Tensor wide = tl::expand_dims(tl::sum(c, {1}), 0);
    return tl::sum(tl::max(m, {1}) * tl::squeeze(wide, 0)) + tl::min(m) + tl::sum(tl::max(m * m, {0}, true));
  };
  report_near("extremes over axes", tl::grad(ranged), ranged, tied);
  auto [ranged_value, ranged_dot] = tl::jvp(ranged, tied, weights);
  std::printf("extremes over axes jvp: %a %a\n", ranged_value.item<double>(), ranged_dot.item<double>());

  // A jvp's derivative must equal the gradient's projection on the same tangent.
  const auto check_projection = [](const char* name, const tl::Tensor& dot, const tl::Tensor& g, const tl::Tensor& t) {
    const double along = tl::sum(g * t).item<double>();
    if (std::abs(along - dot.item<double>()) > 1e-12 * (1 + std::abs(along))) {
      std::printf("FAIL %s jvp: %.17g, the gradient's projection %.17g\n", name, dot.item<double>(), along);
      ++failures;
    }
  };
  // Forward mode through log_softmax, softmax and logsumexp.
  auto [classify_value, classify_dot] = tl::jvp(classify, w, weights);
  std::printf("softmax family jvp: %a %a\n", classify_value.item<double>(), classify_dot.item<double>());
  check_projection("softmax family", classify_dot, tl::grad(classify)(w), weights);

  // Several arguments: tl::argnums (in the order listed) and a tl::vjp of three tensors.
  const tl::Tensor v2 = f64({0.7, -1.2}, {2});
  auto three = [](const tl::Tensor& m, const tl::Tensor& v, const tl::Tensor& k) {
    return tl::sum(tl::tanh(m * v) * k + m * m * 0.5);
  };
  const std::vector<tl::Tensor> listed = tl::grad(three, tl::argnums{1, 0})(w, v2, weights);
  report("argnums v", listed.at(0), [&](const tl::Tensor& q) { return three(w, q, weights); }, v2);
  report("argnums m", listed.at(1), [&](const tl::Tensor& q) { return three(q, v2, weights); }, w);
  auto [three_value, three_listed] = tl::value_and_grad(three, tl::argnums{2})(w, v2, weights);
  std::printf("value_and_grad argnums: %a\n", three_value.item<double>());
  report("argnums k", three_listed.at(0), [&](const tl::Tensor& q) { return three(w, v2, q); }, weights);
  auto [three_y, three_pullback] = tl::vjp(three, w, v2, weights);
  const std::vector<tl::Tensor> three_cts = three_pullback(tl::scalar_tensor(1.5, tl::DType::f64));
  report("vjp m", three_cts.at(0), [&](const tl::Tensor& q) { return three(q, v2, weights) * 1.5; }, w);
  report("vjp v", three_cts.at(1), [&](const tl::Tensor& q) { return three(w, q, weights) * 1.5; }, v2);
  report("vjp k", three_cts.at(2), [&](const tl::Tensor& q) { return three(w, v2, q) * 1.5; }, weights);
  std::printf("vjp of three: %a\n", three_y.item<double>());

  // The user's names shaped like the generated code's (d_q is q's cotangent there,
  // t_q its tangent, ct the pullback's cotangent): they are renamed, u_d_q.
  const double d_scale = 0.25;
  auto named = [&](const tl::Tensor& q) {
    const tl::Tensor d_q = tl::sin(q) * d_scale;
    const tl::Tensor t_q = d_q * q;
    const tl::Tensor ct = t_q + d_q;
    return tl::sum(ct * ct);
  };
  report_near("user names", tl::grad(named), named, w);
  auto [named_value, named_dot] = tl::jvp(named, w, weights);
  std::printf("user names jvp: %a %a\n", named_value.item<double>(), named_dot.item<double>());
  auto [named_y, named_pullback] = tl::vjp(named, w);
  report("user names vjp", named_pullback(tl::scalar_tensor(2.0, tl::DType::f64)).at(0),
         [&](const tl::Tensor& q) { return named(q) * 2.0; }, w);

  // Elementwise ops whose derivatives are read from the op registry: atan2, remainder
  // and pow of two tensors (one broadcast), erf, silu and gelu.
  auto registered = [&](const tl::Tensor& m) {
    const tl::Tensor angle = tl::atan2(m, b + 1.0) + tl::atan2(m * m + 0.5, m);
    const tl::Tensor wrapped = tl::remainder(m * 3.0, b + 0.75) + tl::remainder(b + 2.0, m * m + 0.5);
    const tl::Tensor raised = tl::pow(m * m + 0.5, m + b) + tl::pow(m + 2.0, 3.0);
    return tl::sum(angle * wrapped + raised) + tl::sum(tl::erf(m) * tl::silu(m) + tl::gelu(m * 2.0));
  };
  report_near("registry derivatives", tl::grad(registered), registered, w);
  auto [registered_value, registered_dot] = tl::jvp(registered, w, weights);
  std::printf("registry derivatives jvp: %a %a\n", registered_value.item<double>(), registered_dot.item<double>());
  check_projection("registry derivatives", registered_dot, tl::grad(registered)(w), weights);

  // tl::hessian, generated as forward mode over the generated gradient: its bits, and
  // each column against central differences of the gradient.
  auto curved = [&](const tl::Tensor& m) {
    const tl::Tensor h = tl::tanh(tl::matmul(x, m) + b);
    const tl::Tensor r = tl::pow(m * m + 1.0, 1.5) / (m * m + 2.0) + tl::maximum(m, 0.05) * tl::sigmoid(m);
    return tl::sum(h * h) * scale + tl::mean(tl::exp(m * 0.5)) + tl::sum(r) - tl::sum(tl::log_softmax(m * 2.0));
  };
  const tl::Tensor hess = tl::hessian(curved)(w);
  // Prints a Hessian's bits, and compares each column with central differences of
  // the gradient (the generated one in the generated build).
  const auto report_hessian = [](const char* name, const tl::Tensor& hessian, auto gradient,
                                 const tl::Tensor& at) {
    std::printf("%s:", name);
    for (double e : hessian.to_vector<double>()) std::printf(" %a", e);
    std::printf("\n");
    const std::vector<double> point = at.to_vector<double>(), hv = hessian.to_vector<double>();
    const std::size_t n = point.size();
    for (std::size_t j = 0; j < n; ++j) {
      std::vector<double> up = point, down = point;
      up[j] += 1e-6;
      down[j] -= 1e-6;
      const std::vector<double> gu = gradient(tl::tensor(up, at.shape())).template to_vector<double>();
      const std::vector<double> gd = gradient(tl::tensor(down, at.shape())).template to_vector<double>();
      for (std::size_t i = 0; i < n; ++i) {
        const double fd = (gu[i] - gd[i]) / 2e-6, h = hv[i * n + j];
        if (std::abs(fd - h) > 1e-6 * (1 + std::abs(fd))) {
          std::printf("FAIL %s: element (%zu, %zu): %.17g, central difference %.17g\n", name, i, j, h, fd);
          ++failures;
        }
      }
    }
  };
  report_hessian("hessian", hess, tl::grad(curved), w);
  // report_hessian() at each of points_near(x).
  const auto report_hessian_near = [&](const std::string& name, auto hessian, auto gradient,
                                       const tl::Tensor& around) {
    const std::vector<tl::Tensor> points = points_near(around);
    for (std::size_t k = 0; k < points.size(); ++k)
      report_hessian(at_point(name, k).c_str(), hessian(points[k]), gradient, points[k]);
  };

  // Hessians through custom rules: the gradient's calls of a rule's halves run in
  // forward mode in the library (CustomFunction::forward_jvp and backward_jvp), as the
  // engine differentiates what the halves record. A custom_vjp function, a custom_jvp
  // one (its JVP rule transposed), and both inside loops and branches.
  report_hessian_near("hessian through custom_vjp", tl::hessian(logged), tl::grad(logged), w);
  report_hessian_near("hessian through custom_jvp", tl::hessian(smooth), tl::grad(smooth), w);
  report_hessian_near("hessian through custom rules in loops", tl::hessian(branchy), tl::grad(branchy), w);

  // tl::concat and tl::stack of braced lists (a negative axis, the default one).
  auto joined = [&](const tl::Tensor& m) {
    const tl::Tensor wide = tl::concat({m, tl::sin(m) * 2.0, m * m}, -1);
    const tl::Tensor tall = tl::concat({tl::transpose(x), m});
    const tl::Tensor layers = tl::stack({m, tl::cos(m), m * 0.5}, 1);
    return tl::sum(wide * wide) + tl::sum(tl::tanh(tall)) + tl::sum(tl::exp(layers)) + tl::sum(tl::stack({m, m * m}) * tl::reshape(tall, {2, 3, 2}));
  };
  report_near("concat and stack", tl::grad(joined), joined, w);
  auto [joined_value, joined_dot] = tl::jvp(joined, w, weights);
  std::printf("concat and stack jvp: %a %a\n", joined_value.item<double>(), joined_dot.item<double>());
  check_projection("concat and stack", joined_dot, tl::grad(joined)(w), weights);

  // tl::slice on one axis (Python's bounds, a step) and its transpose tl::slice_backward.
  auto sliced = [&](const tl::Tensor& m) {
    const tl::Tensor top = tl::slice(m, 0, 0, 2) * tl::slice(m, 0, -2, 3);
    const tl::Tensor every_other = tl::slice(tl::concat({m, m * m}), 0, 1, 6, 2);
    const tl::Tensor back = tl::derivatives::slice_backward(top, m.shape(), 0, 1, 3);
    return tl::sum(top * top) + tl::sum(tl::sin(every_other)) + tl::sum(back * m) + tl::sum(tl::slice(m, -1, -1, 2));
  };
  report_near("slice", tl::grad(sliced), sliced, w);
  auto [sliced_value, sliced_dot] = tl::jvp(sliced, w, weights);
  std::printf("slice jvp: %a %a\n", sliced_value.item<double>(), sliced_dot.item<double>());
  check_projection("slice", sliced_dot, tl::grad(sliced)(w), weights);

  // tl::take (a repeated index) and its transpose tl::index_add.
  const tl::Tensor picks = tl::tensor(std::vector<std::int64_t>{2, 0, 2, 1}, {4});
  auto picked = [&](const tl::Tensor& m) {
    const tl::Tensor taken = tl::take(m, picks) * tl::take(m * m, picks, 0);
    const tl::Tensor cols = tl::take(tl::tanh(m), tl::slice(picks, 0, 3, 4), -1);
    const tl::Tensor spread = tl::index_add(m * 0.5, picks, taken, 0);
    return tl::sum(taken * taken) + tl::sum(cols) + tl::sum(tl::sin(spread));
  };
  report_near("take and index_add", tl::grad(picked), picked, w);
  auto [picked_value, picked_dot] = tl::jvp(picked, w, weights);
  std::printf("take and index_add jvp: %a %a\n", picked_value.item<double>(), picked_dot.item<double>());
  check_projection("take and index_add", picked_dot, tl::grad(picked)(w), weights);

  // Layout: transpose by a permutation, permute, reverse, a slice of several axes and
  // its transpose, dynamic slices, select, outer and cumsum.
  auto moved = [&](const tl::Tensor& m) {
    const tl::Tensor cube = tl::reshape(tl::concat({m, m * m}), {2, 3, 2});
    const tl::Tensor turned = tl::transpose(cube, {1, 2, 0}) * tl::permute(tl::sin(cube), {1, 2, 0});
    const tl::Tensor flipped = tl::reverse(m, {0}) * m + tl::reverse(tl::tanh(m), {0, 1});
    const tl::Tensor box = tl::slice(cube, {0, 1, 0}, {2, 3, 2}, {1, 1, 2});
    const tl::Tensor back = tl::derivatives::slice_backward(tl::exp(box), cube.shape(), {0, 1, 0}, {2, 3, 2}, {1, 1, 2});
    const tl::Tensor window = tl::dynamic_slice(m, {1, 0}, {2, 2});
    const tl::Tensor written = tl::dynamic_update_slice(m * 0.5, tl::cos(window), {1, 0});
    const tl::Tensor signed_exp = tl::select(m > 0.0, m * 3.0, tl::exp(m));
    const tl::Tensor product = tl::outer(tl::reshape(m, {-1}), tl::slice(tl::reshape(m, {-1}), 0, 1, 5));
    const tl::Tensor running = tl::cumsum(m * m, 0) + tl::cumsum(tl::sin(m), -1);
    return tl::sum(turned) + tl::sum(flipped * flipped) + tl::sum(back * cube) + tl::sum(written * written) +
           tl::sum(signed_exp) + tl::sum(tl::tanh(product)) + tl::sum(running * m);
  };
  report_near("layout", tl::grad(moved), moved, w);
  auto [moved_value, moved_dot] = tl::jvp(moved, w, weights);
  std::printf("layout jvp: %a %a\n", moved_value.item<double>(), moved_dot.item<double>());
  check_projection("layout", moved_dot, tl::grad(moved)(w), weights);

  // Indexing along an axis: take_along_axis and its transpose scatter_add, embedding.
  const tl::Tensor along = tl::tensor(std::vector<std::int64_t>{1, 0, 1, 1, 0, 0}, {3, 2});
  const tl::Tensor ids = tl::tensor(std::vector<std::int64_t>{2, 0, 2, 1}, {2, 2});
  auto gathered = [&](const tl::Tensor& m) {
    const tl::Tensor across = tl::take_along_axis(m * m, along, 1);
    const tl::Tensor down = tl::take_along_axis(tl::sin(m), ids, 0);
    const tl::Tensor scattered = tl::scatter_add(m * 0.5, along, tl::cos(m), 1);
    const tl::Tensor looked = tl::embedding(tl::tanh(m), ids);
    return tl::sum(across * across) + tl::sum(tl::exp(down)) + tl::sum(tl::sin(scattered)) +
           tl::sum(looked * looked);
  };
  report_near("take_along_axis and scatter_add", tl::grad(gathered), gathered, w);
  auto [gathered_value, gathered_dot] = tl::jvp(gathered, w, weights);
  std::printf("take_along_axis and scatter_add jvp: %a %a\n", gathered_value.item<double>(),
              gathered_dot.item<double>());
  check_projection("take_along_axis and scatter_add", gathered_dot, tl::grad(gathered)(w), weights);

  // pad in constant mode (widths written out), and the tangent of an edge-mode pad.
  auto padded = [&](const tl::Tensor& m) {
    const tl::Tensor framed =
        tl::pad(tl::sin(m), {{1, 2}, {0, 1}}) + tl::pad(m * m, {{0, 3}, {1, 0}}, tl::PadMode::constant, 0.5);
    return tl::sum(tl::tanh(framed) * tl::pad(m, {{2, 1}, {1, 0}}));
  };
  report_near("pad", tl::grad(padded), padded, w);
  auto [padded_value, padded_dot] = tl::jvp(padded, w, weights);
  std::printf("pad jvp: %a %a\n", padded_value.item<double>(), padded_dot.item<double>());
  check_projection("pad", padded_dot, tl::grad(padded)(w), weights);
  auto edged = [&](const tl::Tensor& m) {
    return tl::sum(tl::exp(tl::pad(m * m, {{1, 0}, {2, 1}}, tl::PadMode::edge)));
  };
  auto [edged_value, edged_dot] = tl::jvp(edged, w, weights);
  std::printf("edge pad jvp: %a %a\n", edged_value.item<double>(), edged_dot.item<double>());

  // var and std (all axes, some, keepdims, ddof), through the library's decomposition.
  auto spread = [&](const tl::Tensor& m) {
    const tl::Tensor per_row = tl::var(m * m + m, {1});
    const tl::Tensor whole = tl::std(tl::sin(m) + 2.0 * m);
    const tl::Tensor kept_cols = tl::std(m * 3.0, {0}, true, 1);
    const tl::Tensor both = tl::var(tl::reshape(m, {1, 3, 2}), {0, 2}, false, 1);
    return tl::sum(per_row * per_row) + whole + tl::sum(tl::exp(kept_cols)) + tl::sum(tl::tanh(both * 2.0));
  };
  report_near("var and std", tl::grad(spread), spread, w);
  auto [spread_value, spread_dot] = tl::jvp(spread, w, weights);
  std::printf("var and std jvp: %a %a\n", spread_value.item<double>(), spread_dot.item<double>());
  check_projection("var and std", spread_dot, tl::grad(spread)(w), weights);
  // Statistics of a 16-bit float tensor compute in f32 and convert back, as the
  // library's do (bits only: f16 is too coarse for central differences).
  const tl::Tensor half = (w * 1.7 + 0.3).astype(tl::DType::f16);
  auto half_stats = [](const tl::Tensor& h) {
    return tl::sum(tl::mean(h * h, {0}) * 3.3) + tl::sum(tl::var(h, {0}) * 1.7) + tl::std(h) +
           tl::sum(tl::std(h, {1}, true, 1)) + tl::sum(tl::logsumexp(h * 2.0, {1}));
  };
  auto [half_value, half_dot] = tl::jvp(half_stats, half, (weights * 0.5).astype(tl::DType::f16));
  const tl::Tensor half_grad = tl::grad(half_stats)(half);
  std::printf("half-precision statistics, value, tangent and gradient:");
  for (const tl::Tensor& t : {half_value, half_dot, half_grad})
    for (double v : t.astype(tl::DType::f64).to_vector<double>()) std::printf(" %a", v);
  std::printf("\n");
  // A reduction to nothing: the counts the rules divide by are guarded.
  const tl::Tensor empty = tl::zeros({0, 3}, tl::DType::f64);
  auto emptied = [](const tl::Tensor& e) { return tl::sum(tl::mean(e, {1})) + tl::sum(tl::var(e, {1})); };
  report_near("mean and var of an empty tensor", tl::grad(emptied), emptied, empty);

  // A tensor declared without a value gets it in a branch (or not at all: it stays
  // undefined), and in a loop.
  auto declared = [&](const tl::Tensor& m) {
    tl::Tensor inner;
    if (scale > 0.1) {
      const tl::Tensor s = tl::sin(m);
      inner = s * m;
    } else {
      inner = tl::exp(m);
    }
    tl::Tensor unused;
    if (scale > 1.0) unused = m * 2.0;
    tl::Tensor last;
    for (int i = 0; i < 3; ++i) last = tl::tanh(inner * double(i + 1)) * m;
    return tl::sum(inner * last);
  };
  report_near("declared without a value", tl::grad(declared), declared, w);
  auto [declared_value, declared_dot] = tl::jvp(declared, w, weights);
  std::printf("declared without a value jvp: %a %a\n", declared_value.item<double>(),
              declared_dot.item<double>());
  check_projection("declared without a value", declared_dot, tl::grad(declared)(w), weights);

  // Hessians through branches: if/else, ?:, an early return in a called function, a
  // tensor first assigned in a branch (each taken one way), and tl::cond (a real
  // branch when traced) at points that take each side.
  auto bent = [&](const tl::Tensor& m) {
    tl::Tensor inner;
    if (scale > 0.1) {
      inner = tl::sin(m) * m;
    } else {
      inner = tl::exp(m);
    }
    const tl::Tensor z = scale < 0.1 ? inner : tl::tanh(inner * 2.0) * m;
    tl::Tensor u = z;
    if (m.numel() > 3) u = u * tl::cos(m);
    return tl::sum(u * z) + ramp(m * m - 0.05) + tl::sum(tl::softmax(m * m, -1) * m);
  };
  report_hessian_near("hessian through branches", tl::hessian(bent), tl::grad(bent), w);
  report_hessian_near("hessian through tl::cond", tl::hessian(chosen), tl::grad(chosen), w);
  report_hessian_near("hessian through tl::cond, else", tl::hessian(chosen), tl::grad(chosen), -w);
  // Hessians through loops: the generated gradient's tapes and its reverse loops are
  // lowered again (C++ loops with run-time bounds, two carried values, a while loop
  // with counters, break and continue, tl::fori_loop and tl::while_loop, nested loops).
  report_hessian_near("hessian through a loop", tl::hessian(rolled), tl::grad(rolled), w);
  report_hessian_near("hessian through an integrator", tl::hessian(physics), tl::grad(physics), x);
  report_hessian_near("hessian through a while loop", tl::hessian(settle), tl::grad(settle), w);
  report_hessian_near("hessian through break", tl::hessian(stopping), tl::grad(stopping), w);
  report_hessian_near("hessian through continue", tl::hessian(skipping), tl::grad(skipping), w);
  report_hessian_near("hessian through tl::fori_loop", tl::hessian(stepped), tl::grad(stepped), w);
  report_hessian_near("hessian through tl::while_loop", tl::hessian(relaxed), tl::grad(relaxed), w);
  report_hessian_near("hessian through nested loops", tl::hessian(nested), tl::grad(nested), w);

  // matmul of any rank: batches that broadcast each way, a vector on either side (their
  // shares are the library's matmul_backward); a Hessian through a batch that does not
  // broadcast.
  const tl::Tensor cube = tl::reshape(tl::sin(tl::arange(12).astype(tl::DType::f64) * 0.37), {2, 1, 2, 3});
  const tl::Tensor slab = tl::reshape(tl::cos(tl::arange(24).astype(tl::DType::f64) * 0.29), {2, 1, 4, 3});
  const tl::Tensor row = f64({0.3, -0.7, 1.1}, {3});
  auto batched = [&](const tl::Tensor& m) {
    const tl::Tensor h = tl::tanh(tl::matmul(cube, m));
    const tl::Tensor back = tl::matmul(h, tl::transpose(m));
    const tl::Tensor both = tl::matmul(slab, tl::stack({m, m * m, tl::sin(m)}));
    return tl::sum(back * back) + tl::sum(tl::exp(both * 0.3)) + tl::matmul(row, tl::tanh(tl::matmul(m, b))) +
           tl::matmul(tl::matmul(row, m), b);
  };
  report_near("batched matmul", tl::grad(batched), batched, w);
  auto [batched_value, batched_dot] = tl::jvp(batched, w, weights);
  std::printf("batched matmul jvp: %a %a\n", batched_value.item<double>(), batched_dot.item<double>());
  check_projection("batched matmul", batched_dot, tl::grad(batched)(w), weights);
  auto flat_batch = [&](const tl::Tensor& m) {
    return tl::sum(tl::tanh(tl::matmul(tl::reshape(cube, {2, 2, 3}), m))) +
           tl::sum(tl::sin(tl::matmul(row, m)));
  };
  report_hessian_near("hessian through a batched matmul", tl::hessian(flat_batch), tl::grad(flat_batch), w);

  // prod and cumprod, whose derivatives are library functions that the engine's rules
  // call too; m - 0.3 holds an exact zero.
  auto multiplied = [&](const tl::Tensor& m) {
    const tl::Tensor zeroed = m - 0.3;
    return tl::sum(tl::prod(m + 1.0, {0})) + tl::prod(tl::tanh(m)) * 3.0 +
           tl::sum(tl::prod(zeroed, 1, true) * m) + tl::sum(tl::cumprod(zeroed * 2.0, 0) * m) +
           tl::sum(tl::cumprod(m + 0.5, -1));
  };
  report_near("prod and cumprod", tl::grad(multiplied), multiplied, w);
  auto [multiplied_value, multiplied_dot] = tl::jvp(multiplied, w, weights);
  std::printf("prod and cumprod jvp: %a %a\n", multiplied_value.item<double>(),
              multiplied_dot.item<double>());
  check_projection("prod and cumprod", multiplied_dot, tl::grad(multiplied)(w), weights);
  // The Hessian: forward mode over prod_backward and cumprod_backward
  // (tl::prod_backward_jvp, tl::cumprod_backward_jvp), both through the exact zero.
  report_hessian_near("hessian through prod and cumprod", tl::hessian(multiplied), tl::grad(multiplied), w);

  // tile and repeat, whose shares are the library's tile_backward and repeat_backward.
  auto copied = [&](const tl::Tensor& m) {
    const tl::Tensor tiled = tl::tanh(tl::tile(m, {2, 1, 3}) * 0.7);
    const tl::Tensor repeated = tl::repeat(tl::sin(m), 3, 0);
    return tl::sum(tiled * tiled) + tl::sum(repeated * repeated * repeated) +
           tl::sum(tl::repeat(m, 2, -1) * tl::tile(m, {1, 2}));
  };
  report_near("tile and repeat", tl::grad(copied), copied, w);
  auto [copied_value, copied_dot] = tl::jvp(copied, w, weights);
  std::printf("tile and repeat jvp: %a %a\n", copied_value.item<double>(), copied_dot.item<double>());
  check_projection("tile and repeat", copied_dot, tl::grad(copied)(w), weights);
  report_hessian_near("hessian through tile and repeat", tl::hessian(copied), tl::grad(copied), w);

  // Reductions over axes and keepdims that are not literals (variables, several
  // negative axes): the library's sum_backward reads them at run time. The constants
  // are not captured (only their values are read): the generated code writes those.
  const int across = 0;
  const bool keep = true;
  constexpr double quarter = 0.25;
  auto reduced = [&](const tl::Tensor& m) {
    const tl::Tensor shifted = m * m + quarter;
    return tl::sum(tl::sum(shifted, {across}, keep)) + tl::mean(tl::exp(m), {-1, -2}) +
           tl::sum(tl::max(tl::sin(m), {across}) * tl::var(m, {-2}, false, 1)) + tl::std(shifted, {-2, -1}) +
           tl::sum(tl::min(m, across, true) * tl::prod(shifted, {across}, true));
  };
  report_near("axes that are not literals", tl::grad(reduced), reduced, w);
  auto [reduced_value, reduced_dot] = tl::jvp(reduced, w, weights);
  std::printf("axes that are not literals jvp: %a %a\n", reduced_value.item<double>(),
              reduced_dot.item<double>());
  check_projection("axes that are not literals", reduced_dot, tl::grad(reduced)(w), weights);

  // var of a tensor used elsewhere: var converts it to its statistics dtype, which for
  // f64 is its own, so the library's astype returns the tensor itself and the engine
  // adds var's shares to its cotangent among the others, one by one. (Summed apart
  // first, the gradient differed in the last place at 88 of 200 points.)
  auto varied = [](const tl::Tensor& m) {
    return tl::sum(tl::max(tl::sin(m), {0}) * tl::var(m, {-2}, false, 1));
  };
  report_near("var of a tensor used elsewhere", tl::grad(varied), varied, w);
  report_hessian_near("hessian of var of a tensor used elsewhere", tl::hessian(varied), tl::grad(varied), w);
  // The same for the other functions that return their argument where they would not
  // change it: a reshape to its own shape, broadcast_to its own shape, a whole slice,
  // the transpose of a vector, a reverse of no axes.
  auto unchanged = [](const tl::Tensor& m) {
    const tl::Tensor r = tl::reshape(m, m.shape());
    const tl::Tensor wide = tl::broadcast_to(m, {3, 2});
    const tl::Tensor s = tl::slice(m, 0, 0, 3);
    const tl::Tensor v = tl::reshape(m, {6});
    const tl::Tensor t = tl::transpose(v);
    const tl::Tensor u = tl::reverse(v, std::vector<std::int64_t>{});
    return tl::sum(tl::sin(m) * r * r) + tl::sum(tl::exp(wide) * wide * m) + tl::sum(s * tl::cos(m) * s) +
           tl::sum(t * tl::tanh(v) * t) + tl::sum(u * v * u);
  };
  report_near("functions that return their argument", tl::grad(unchanged), unchanged, w);
  // Passed on twice (e is r is m), with a share of m's own between: d_e refers to d_r,
  // which refers to d_m.
  auto twice = [](const tl::Tensor& m) {
    const tl::Tensor r = tl::reshape(m, m.shape());
    const tl::Tensor z = r * 3.0;
    const tl::Tensor e = tl::broadcast_to(r, m.shape());
    const tl::Tensor s = tl::sin(m);
    const tl::Tensor q = s * z;
    const tl::Tensor ee = e * e;
    return tl::sum(ee) + tl::sum(q);
  };
  report_near("functions that return their argument, twice", tl::grad(twice), twice, w);
  report_hessian_near("hessian of functions that return their argument", tl::hessian(unchanged),
                      tl::grad(unchanged), w);

  // conv2d (padding, stride, groups) and the pools, whose shares are library functions
  // computed with the engine's rules; options written in the call or captured.
  const tl::Tensor image = tl::reshape(tl::sin(tl::arange(72).astype(tl::DType::f64) * 0.41), {1, 2, 6, 6});
  const tl::Tensor mixer = tl::reshape(tl::cos(tl::arange(24).astype(tl::DType::f64) * 0.53), {2, 3, 2, 2});
  const tl::Tensor kernel = tl::reshape(tl::sin(tl::arange(24).astype(tl::DType::f64) * 0.29), {3, 2, 2, 2});
  const tl::Tensor grouped = f64({0.5, -1.5, 2.0}, {3, 1, 1, 1});
  const tl::Pool2dOptions smoothing{.kernel = {3, 3}, .stride = {1, 1}, .padding = {1, 1}};
  auto convolved = [&](const tl::Tensor& k) {
    const tl::Tensor h = tl::tanh(tl::conv2d(image, k, {.padding = {1, 1}}) * 0.5);
    const tl::Tensor mixed = tl::conv2d(h, mixer, {.stride = {2, 2}});
    const tl::Tensor pooled = tl::max_pool2d(h, {.kernel = {2, 2}});
    const tl::Tensor averaged = tl::avg_pool2d(h * h, smoothing);
    return tl::sum(mixed * mixed) + tl::sum(pooled) + tl::sum(averaged * 0.5) +
           tl::sum(tl::exp(tl::conv2d(h, grouped * tl::mean(k), {.groups = 3})));
  };
  report_near("conv2d and pools", tl::grad(convolved), convolved, kernel);
  auto [convolved_value, convolved_dot] = tl::jvp(convolved, kernel, kernel * 0.3 + 0.1);
  std::printf("conv2d and pools jvp: %a %a\n", convolved_value.item<double>(), convolved_dot.item<double>());
  check_projection("conv2d and pools", convolved_dot, tl::grad(convolved)(kernel), kernel * 0.3 + 0.1);
  report_hessian_near("hessian through conv2d and pools", tl::hessian(convolved), tl::grad(convolved),
                      kernel);

  // conv_transpose2d (stride, padding, output padding, dilation, groups), whose shares
  // are the library's conv_transpose2d_backward.
  const tl::Tensor coarse = tl::reshape(tl::cos(tl::arange(32).astype(tl::DType::f64) * 0.37), {1, 2, 4, 4});
  const tl::Tensor pair = f64({0.5, -1.0, 1.5, 0.25, -0.75, 1.25, 0.5, 1.0}, {2, 1, 2, 2});
  const tl::ConvTranspose2dOptions upsample{.stride = {2, 2}, .padding = {1, 1}, .output_padding = {1, 1}};
  auto upsampled = [&](const tl::Tensor& k) {
    const tl::Tensor up = tl::tanh(tl::conv_transpose2d(coarse, k, upsample));
    const tl::Tensor wide =
        tl::conv_transpose2d(up, tl::reshape(k, {3, 2, 3, 3}) * 0.3, {.dilation = {2, 1}});
    return tl::sum(up * up) + tl::sum(tl::sin(wide)) +
           tl::sum(tl::exp(tl::conv_transpose2d(coarse, pair * tl::mean(k), {.stride = {1, 2}, .groups = 2}) *
                           0.1));
  };
  const tl::Tensor lifting = tl::reshape(tl::sin(tl::arange(54).astype(tl::DType::f64) * 0.43), {2, 3, 3, 3});
  report_near("conv_transpose2d", tl::grad(upsampled), upsampled, lifting);
  auto [upsampled_value, upsampled_dot] = tl::jvp(upsampled, lifting, lifting * 0.2 - 0.1);
  std::printf("conv_transpose2d jvp: %a %a\n", upsampled_value.item<double>(), upsampled_dot.item<double>());
  check_projection("conv_transpose2d", upsampled_dot, tl::grad(upsampled)(lifting), lifting * 0.2 - 0.1);
  report_hessian_near("hessian through conv_transpose2d", tl::hessian(upsampled), tl::grad(upsampled),
                      lifting);

  // Scalars assigned again, as ordinary C++ does: each assignment is a new version,
  // so every use keeps the value it read. A scalar read before a loop changes it;
  // counters changed anywhere in a body and read after the change; a loop's step
  // changing a scalar declared outside it; a parameter taken by value and assigned
  // in a function inlined twice.
  struct Halved {
    static tl::Tensor apply(const tl::Tensor& v, double k) {
      k = k * 0.5;
      tl::Tensor r = v * k;
      for (int i = 0; i < 2; ++i) {
        r = tl::sin(r) * k;
        k += 0.25;
      }
      return r * k;
    }
  };
  auto versioned = [](const tl::Tensor& m) {
    double k = 2.0;
    tl::Tensor lifted = m * k;
    k = k * 0.5 + 0.25;
    k += 1.0;
    lifted = tl::sin(lifted) * k;
    int n = 0;
    double t = 1.5;
    tl::Tensor z = lifted * t;
    while (n < 4) {
      n += 1;
      t = t * 0.5;
      z = tl::cos(z) * double(n) + lifted * t;
      t -= 0.125;
    }
    ++n;
    double r;
    r = 0.0;
    for (; r < 1.0; r += 0.25) z = z * (1.0 + r) - lifted * r;
    return tl::sum(z * z) * double(n) / 16.0 + tl::sum(lifted) * t * r +
           tl::sum(Halved::apply(m, 3.0) * Halved::apply(z, 1.0));
  };
  report_near("scalars assigned again", tl::grad(versioned), versioned, w);
  auto [versioned_value, versioned_dot] = tl::jvp(versioned, w, weights);
  std::printf("scalars assigned again jvp: %a %a\n", versioned_value.item<double>(),
              versioned_dot.item<double>());
  check_projection("scalars assigned again", versioned_dot, tl::grad(versioned)(w), weights);
  report_hessian_near("hessian with scalars assigned again", tl::hessian(versioned), tl::grad(versioned), w);
  // Counters of nested loops: one the outer loop carries and two inner loops change,
  // one declared in the outer body and changed by the inner loop; both read after the
  // inner loop, whose final values the outer loop saves per iteration.
  auto counted = [](const tl::Tensor& m) {
    tl::Tensor s = m;
    int idx = 0;
    double rate = 0.3;
    for (int i = 0; i < 3; ++i) {
      double u = 1.0;
      for (int j = 0; j < 2; ++j) {
        s = tl::tanh(s * rate * u) + m * double(idx);
        idx += 1;
        u = u * 1.5;
      }
      rate = rate + 0.1 * u;
      s = s * rate + double(idx) * 0.01;
      for (int j = 0; j < i; ++j) {
        s = tl::sin(s) * 1.1;
        idx++;
      }
    }
    return tl::sum(s * s) + double(idx);
  };
  report_near("nested counters", tl::grad(counted), counted, w);
  auto [counted_value, counted_dot] = tl::jvp(counted, w, weights);
  std::printf("nested counters jvp: %a %a\n", counted_value.item<double>(), counted_dot.item<double>());
  check_projection("nested counters", counted_dot, tl::grad(counted)(w), weights);
  report_hessian_near("hessian with nested counters", tl::hessian(counted), tl::grad(counted), w);
  // Scalars changed inside ifs, joined after them: in one path, reading the value
  // from before; in an else-if chain; by a loop inside a path; and in a loop body,
  // changing counters the loop carries (the joins kept per iteration).
  auto switched = [](const tl::Tensor& m) {
    double k = 2.0;
    tl::Tensor acc = tl::sin(m) * k;
    if (m.numel() > 3) k = k * 1.5;
    double s = 0.5;
    if (m.numel() > 100) {
      s = 4.0;
    } else if (m.numel() > 2) {
      s += k;
      acc = acc * s;
    } else {
      s = -1.0;
    }
    int n = 0;
    if (m.numel() > 1) {
      for (int i = 0; i < 3; ++i) {
        acc = tl::cos(acc) * s;
        n += 2;
      }
    }
    double t = 0.25;
    for (int i = 0; i < 4; ++i) {
      if (i % 2 == 1) {
        t = t * 2.0;
        acc = acc + m * t;
      } else {
        t -= 0.125;
      }
      acc = tl::tanh(acc * t) + m * k;
      if (i > 1) ++n;
    }
    return tl::sum(acc * acc) * k + s * double(n) + t;
  };
  report_near("scalars joined after ifs", tl::grad(switched), switched, w);
  auto [switched_value, switched_dot] = tl::jvp(switched, w, weights);
  std::printf("scalars joined after ifs jvp: %a %a\n", switched_value.item<double>(),
              switched_dot.item<double>());
  check_projection("scalars joined after ifs", switched_dot, tl::grad(switched)(w), weights);
  report_hessian_near("hessian with scalars joined after ifs", tl::hessian(switched), tl::grad(switched), w);
  // Scalars changed in the rest of a loop body after a continue or a break (a branch,
  // joined after it), and on the path of an if that returns.
  auto skipping_scalars = [](const tl::Tensor& m) {
    tl::Tensor acc = m;
    double k = 1.0;
    int n = 0;
    for (int i = 0; i < 4; ++i) {
      acc = acc * 1.01;
      if (i == 1) continue;
      k = k * 0.75;
      acc = tl::sin(acc) * k + m;
      ++n;
    }
    double u = 0.5;
    for (int i = 0; i < 5; ++i) {
      u += 0.25;
      acc = tl::cos(acc) * u;
      if (i == 2) break;
      u = u * k;
      n += 2;
    }
    double r = 0.5;
    if (n > 10) return tl::sum(acc) * r;
    r += k * u;
    return tl::sum(acc * acc) * r + double(n);
  };
  report_near("scalars changed after jumps", tl::grad(skipping_scalars), skipping_scalars, w);
  auto [skipping_value, skipping_dot] = tl::jvp(skipping_scalars, w, weights);
  std::printf("scalars changed after jumps jvp: %a %a\n", skipping_value.item<double>(),
              skipping_dot.item<double>());
  check_projection("scalars changed after jumps", skipping_dot, tl::grad(skipping_scalars)(w), weights);
  report_hessian_near("hessian with scalars changed after jumps", tl::hessian(skipping_scalars),
                      tl::grad(skipping_scalars), w);
  // max and min over axes, whose shares are the library's extreme_backward (the
  // engine's rule): in a Hessian, its forward rule is linear in the cotangent.
  auto peaked = [](const tl::Tensor& m) {
    const tl::Tensor s = tl::sin(m) * m;
    return tl::sum(tl::max(s, {0}) * tl::min(m * m, {0}, true)) + tl::max(tl::exp(m)) +
           tl::sum(tl::min(s, -1));
  };
  report_near("max and min in a hessian", tl::grad(peaked), peaked, w);
  auto [peaked_value, peaked_dot] = tl::jvp(peaked, w, weights);
  std::printf("max and min in a hessian jvp: %a %a\n", peaked_value.item<double>(),
              peaked_dot.item<double>());
  check_projection("max and min in a hessian", peaked_dot, tl::grad(peaked)(w), weights);
  report_hessian_near("hessian through max and min over axes", tl::hessian(peaked), tl::grad(peaked), w);
  // An if whose statements end with a continue or a break, directly in a loop body:
  // its statements, then the jump on the condition it saved.
  auto leaving = [](const tl::Tensor& m) {
    tl::Tensor acc = m;
    double k = 1.0;
    for (int i = 0; i < 6; ++i) {
      acc = tl::sin(acc) * 1.1 + m;
      if (i % 3 == 1) {
        acc = acc * 0.5;
        k += 0.25;
        continue;
      } else {
        k = k * 0.95;
      }
      acc = tl::cos(acc) * k;
    }
    for (int i = 0; i < 5; ++i) {
      acc = tl::tanh(acc * k) + m;
      if (i == 2) {
        acc = acc + m * k;
        k = k * 2.0;
        break;
      }
      k -= 0.125;
    }
    return tl::sum(acc * acc) * k;
  };
  report_near("statements before a jump", tl::grad(leaving), leaving, w);
  auto [leaving_value, leaving_dot] = tl::jvp(leaving, w, weights);
  std::printf("statements before a jump jvp: %a %a\n", leaving_value.item<double>(),
              leaving_dot.item<double>());
  check_projection("statements before a jump", leaving_dot, tl::grad(leaving)(w), weights);
  report_hessian_near("hessian through statements before a jump", tl::hessian(leaving), tl::grad(leaving), w);
  // pad in constant mode through tl::pad_backward: widths of 0, 1 and more, an axis of
  // size 1, and widths held in a variable.
  const std::vector<std::pair<std::int64_t, std::int64_t>> around{{2, 0}, {1, 1}};
  auto bordered = [&](const tl::Tensor& m) {
    const tl::Tensor framed = tl::pad(m * m, {{1, 0}, {2, 1}}, tl::PadMode::constant, 0.5);
    const tl::Tensor column = tl::slice(tl::sin(m), 1, 0, 1);
    const tl::Tensor wide = tl::pad(column, {{0, 2}, {1, 1}}) + tl::pad(column * 2.0, {{1, 1}, {1, 1}});
    const tl::Tensor held =
        tl::pad(tl::tanh(m), around) + tl::pad(m * 0.5, around, tl::PadMode::constant, 1.5);
    return tl::sum(tl::exp(framed) * 0.1) + tl::sum(wide * wide * wide) + tl::sum(tl::cos(column * column)) +
           tl::sum(tl::sin(held) * held);
  };
  report_near("pads with widths in a variable", tl::grad(bordered), bordered, w);
  auto [bordered_value, bordered_dot] = tl::jvp(bordered, w, weights);
  std::printf("pads with widths in a variable jvp: %a %a\n", bordered_value.item<double>(),
              bordered_dot.item<double>());
  check_projection("pads with widths in a variable", bordered_dot, tl::grad(bordered)(w), weights);
  report_hessian_near("hessian through pads with widths in a variable", tl::hessian(bordered),
                      tl::grad(bordered), w);
  // Jumps anywhere in a loop body: a continue before the last statement's break (which
  // the continue skips), two jumps in one body, jumps inside branches (two deep, in an
  // else, a bare break after statements), with scalars changed after them.
  auto jumping = [](const tl::Tensor& m) {
    tl::Tensor v = m;
    for (int j = 0; j < 7; ++j) {
      v = tl::sin(v) + m;
      if (j % 2 == 0) continue;
      v = v * 1.25;
      if (j >= 2) break;
    }
    double k = 1.0;
    for (int j = 0; j < 8; ++j) {
      v = tl::cos(v) * k + m;
      if (j == 1) continue;
      k = k * 0.9;
      if (j == 5) break;
      v = v + m * k;
    }
    for (int j = 0; j < 6; ++j) {
      if (j > 1) {
        if (j == 4) break;
        v = v * 0.75;
      }
      v = tl::tanh(v) + m;
    }
    int taken = 0;
    for (int j = 0; j < 9; ++j) {
      if (j % 3 != 0) {
        v = tl::sin(v) * 1.1;
      } else {
        if (j > 4) {
          v = v - m;
          k += 0.5;
          break;
        }
        v = v + m * 0.5;
        continue;
      }
      ++taken;
      v = v * (1.0 + 0.1 * taken);
    }
    return tl::sum(v * v) * k;
  };
  report_near("jumps anywhere in a body", tl::grad(jumping), jumping, w);
  auto [jumping_value, jumping_dot] = tl::jvp(jumping, w, weights);
  std::printf("jumps anywhere in a body jvp: %a %a\n", jumping_value.item<double>(),
              jumping_dot.item<double>());
  check_projection("jumps anywhere in a body", jumping_dot, tl::grad(jumping)(w), weights);
  report_hessian_near("hessian through jumps anywhere in a body", tl::hessian(jumping), tl::grad(jumping), w);
  // Scalars an if inside a branch changed, read after it: the branch's reverse sweep
  // runs the inner if's scalar statements again. In a branch of the function, in one
  // of a loop body, after a continue, and through an else-if chain.
  bool opened = true, closed = false;  // not const: Clang says a constant needs no capture
  auto rejoined = [opened, closed](const tl::Tensor& m) {
    tl::Tensor v = tl::sin(m);
    if (opened) {
      double u = 1.0;
      if (!closed) u = 2.0;
      v = tl::sin(v) * u;
    }
    for (int j = 0; j < 5; ++j) {
      if (j % 2 == 1) {
        double r = 0.5;
        if (j > 2) {
          r = r * 3.0;
        } else if (j > 0) {
          r += 0.25;
        } else {
          r = 0.0;
        }
        v = tl::cos(v) * r + m;
      }
      if (j == 2) continue;
      double q = 1.0 + 0.1 * j;
      if (j > 3) q = q * q;
      v = v * q;
    }
    return tl::sum(v * v);
  };
  report_near("scalars read after an if in a branch", tl::grad(rejoined), rejoined, w);
  auto [rejoined_value, rejoined_dot] = tl::jvp(rejoined, w, weights);
  std::printf("scalars read after an if in a branch jvp: %a %a\n", rejoined_value.item<double>(),
              rejoined_dot.item<double>());
  check_projection("scalars read after an if in a branch", rejoined_dot, tl::grad(rejoined)(w), weights);
  report_hessian_near("hessian through scalars read after an if in a branch", tl::hessian(rejoined),
                      tl::grad(rejoined), w);

  // Lists of tensors (std::vector<tl::Tensor>) read by element: differentiated, with
  // literal and computed indices, in a loop over its size, an element read twice in
  // one op, one never read (its gradient is zeros), elements passed on to a function;
  // and a list not differentiated, as an argument and as a capture.
  const std::vector<tl::Tensor> layers{f64({0.3, -0.2, 0.1, 0.4, -0.5, 0.2}, {3, 2}), f64({0.05, -0.1}, {2}),
                                       f64({0.2, -0.3, 0.6, 0.1}, {2, 2}), f64({0.0, 0.1}, {2}),
                                       f64({1.0, 2.0}, {2})};
  const auto report_list = [](const std::string& name, const std::vector<tl::Tensor>& gs, auto f,
                              const std::vector<tl::Tensor>& ps) {
    if (gs.size() != ps.size()) {
      std::printf("FAIL %s: %zu gradients for %zu tensors\n", name.c_str(), gs.size(), ps.size());
      ++failures;
      return;
    }
    for (std::size_t k = 0; k < ps.size(); ++k) {
      const auto with_k = [&](const tl::Tensor& t) {
        std::vector<tl::Tensor> with = ps;
        with[k] = t;
        return f(with);
      };
      report(name + " [" + std::to_string(k) + "]", gs[k], with_k, ps[k]);
    }
  };
  auto stacked = [&x](const std::vector<tl::Tensor>& ps) {
    tl::Tensor h = x;
    for (std::size_t i = 0; i + 2 < ps.size(); i += 2) h = layer(h, ps[i], ps.at(i + 1));
    return tl::sum(h * h) + tl::sum(ps.front() * ps[0]) * 0.01 + tl::sum(tl::exp(ps[1])) * 0.5;
  };
  report_list("a list of parameters", tl::grad(stacked)(layers), stacked, layers);
  auto [stacked_value, stacked_grads] = tl::value_and_grad(stacked)(layers);
  std::printf("a list of parameters value: %a\n", stacked_value.item<double>());
  report_list("a list of parameters, value_and_grad", stacked_grads, stacked, layers);
  auto mixed = [&layers](const tl::Tensor& m, const std::vector<tl::Tensor>& coefs) {
    return tl::sum(m * coefs[1] + tl::sin(m * coefs.back()) * layers[1]);
  };
  const std::vector<tl::Tensor> coefs{f64({1.5}, {1}), f64({0.5, -1.0}, {2}), f64({2.0}, {})};
  report(
      "a list not differentiated", tl::grad(mixed)(w, coefs),
      [&](const tl::Tensor& m) { return mixed(m, coefs); }, w);

  // Returns inside a loop: the loop leaves at the iteration that returns, by either
  // of two returns (after continues on other iterations), or runs to its end and the
  // rest of the body returns.
  for (const int limit : {3, 9, 20}) {
    auto solved = [limit](const tl::Tensor& m) {
      tl::Tensor v = m;
      double k = 1.0;
      for (int j = 0; j < 8; ++j) {
        v = tl::tanh(v) * 1.2 + m * 0.3;
        if (j == limit) return tl::sum(v * v) * k;
        if (j % 2 == 1) {
          k += 0.5;
          continue;
        }
        if (j == 4 && limit > 10) {
          v = v * 0.5;
          return tl::sum(v * m);
        }
        v = v * 0.9;
      }
      k = k * 2.0;
      return tl::sum(v * v) * k + tl::sum(v);
    };
    const std::string name = "returns inside a loop, limit " + std::to_string(limit);
    report_near(name, tl::grad(solved), solved, w);
    auto [solved_value, solved_dot] = tl::jvp(solved, w, weights);
    std::printf("%s jvp: %a %a\n", name.c_str(), solved_value.item<double>(), solved_dot.item<double>());
    check_projection(name.c_str(), solved_dot, tl::grad(solved)(w), weights);
    report_hessian_near("hessian through " + name, tl::hessian(solved), tl::grad(solved), w);
  }

  // Exact zeros through loops: the Hessian of an elementwise loop (zero off its
  // diagonal, -0 where the trace's products give it) and a jvp along one element into
  // an accumulator that starts without a tangent. The trace's first iteration has no
  // tangent for the carried value, a symbolic zero: no +0 term may turn a -0 into +0.
  auto elementwise = [](const tl::Tensor& m) {
    tl::Tensor v = m;
    tl::Tensor acc = tl::zeros_like(m);
    for (int j = 0; j < 3; ++j) {
      v = tl::sin(v) * 1.2 + m * 0.3;
      acc = acc + v;
    }
    return tl::sum(v) + tl::sum(acc);
  };
  const tl::Tensor one_element = f64({0, 0, 1, 0, 0, 0}, {3, 2});
  report_hessian_near("hessian with exact zeros through a loop", tl::hessian(elementwise),
                      tl::grad(elementwise), w);
  auto [elementwise_value, elementwise_dot] = tl::jvp(elementwise, w, one_element);
  std::printf("exact zeros through a loop jvp: %a %a\n", elementwise_value.item<double>(),
              elementwise_dot.item<double>());
  check_projection("exact zeros through a loop", elementwise_dot, tl::grad(elementwise)(w), one_element);

  // A model's tl::nn::Params read by name: differentiated (its gradient is a Params of
  // the same names, in order; an entry never read gets zeros, one read in two ops
  // adds both shares; passed on to a function), and a Params not differentiated,
  // captured.
  const tl::nn::Params model{{"hidden.weight", layers[0]},
                             {"hidden.bias", layers[1]},
                             {"out.weight", layers[2]},
                             {"unused", layers[3]},
                             {"scale", layers[4]}};
  const auto report_params = [&](const std::string& name, const tl::nn::Params& gs, auto f) {
    if (gs.names() != model.names()) {
      std::printf("FAIL %s: the gradient's names differ from the parameters'\n", name.c_str());
      ++failures;
    }
    report_list(
        name, gs.tensors(), [&](const std::vector<tl::Tensor>& ts) { return f(model.with_tensors(ts)); },
        model.tensors());
  };
  auto modelled = [&x](const tl::nn::Params& p) {
    const tl::Tensor out = head(p, layer(x, p.at("hidden.weight"), p.at("hidden.bias")));
    return tl::sum(out * out) + tl::sum(p.at("scale") * p.at("scale")) * 0.1;
  };
  report_params("a model's Params", tl::grad(modelled)(model), modelled);
  auto [modelled_value, modelled_grads] = tl::value_and_grad(modelled)(model);
  std::printf("a model's Params value: %a\n", modelled_value.item<double>());
  report_params("a model's Params, value_and_grad", modelled_grads, modelled);
  auto frozen = [&model](const tl::Tensor& m) { return tl::sum(tl::tanh(m * model.at("hidden.weight"))); };
  report_near("a Params not differentiated", tl::grad(frozen), frozen, w);

  // tl::nn's losses, whose bodies are in their header: their checks are copied as
  // written, their default arguments written out, a reduction may be chosen at run
  // time, and a loss may be inlined in a loop.
  const tl::Tensor classes = tl::tensor(std::vector<std::int64_t>{1, 0, 1}, {3});
  const tl::Tensor targets = f64({1, 0, 0.5, 0.2, 1, 0}, {3, 2});
  auto classified = [&](const tl::Tensor& m) {
    return tl::nn::cross_entropy(m * 2.0, classes) +
           tl::nn::cross_entropy(m, classes, 0.1, tl::nn::Reduction::sum) * 0.5 +
           tl::nn::nll_loss(tl::log_softmax(m, 1), classes);
  };
  report_near("tl::nn's classification losses", tl::grad(classified), classified, w);
  report_hessian_near("hessian of tl::nn's classification losses", tl::hessian(classified),
                      tl::grad(classified), w);
  tl::nn::Reduction reduction = tl::nn::Reduction::sum;  // not const: read at run time
  auto regressed = [&](const tl::Tensor& m) {
    const tl::Shape shape = m.shape();  // a constant of numbers
    tl::Tensor total = tl::nn::huber_loss(m * 3.0, targets, 0.8);
    for (int i = 1; i < 3; ++i)
      total = total + tl::nn::mse_loss(tl::reshape(tl::tanh(m * double(i)), shape), targets, reduction);
    return total + tl::nn::binary_cross_entropy_with_logits(m, targets);
  };
  report_near("tl::nn's regression losses", tl::grad(regressed), regressed, w);
  auto [regressed_value, regressed_dot] = tl::jvp(regressed, w, weights);
  std::printf("tl::nn's regression losses jvp: %a %a\n", regressed_value.item<double>(),
              regressed_dot.item<double>());
  check_projection("tl::nn's regression losses", regressed_dot, tl::grad(regressed)(w), weights);

  // tl::dot_general, whose shares are tl::dot_general_backward: x @ m^T over the last
  // axes, as a Linear layer computes it, and a batched product.
  auto contracted = [&](const tl::Tensor& m) {
    const tl::Tensor contraction =
        tl::tanh(tl::dot_general(x, tl::transpose(m), {{}, {}, {x.rank() - 1}, {1}}));
    const tl::Tensor outers =
        tl::dot_general(tl::reshape(m, {3, 2, 1}), tl::reshape(m * m, {3, 1, 2}), {{0}, {0}, {2}, {1}});
    return tl::sum(contraction * contraction) + tl::sum(tl::sin(outers));
  };
  report_near("dot_general", tl::grad(contracted), contracted, w);
  report_hessian_near("hessian through dot_general", tl::hessian(contracted), tl::grad(contracted), w);
  auto [contracted_value, contracted_dot] = tl::jvp(contracted, w, weights);
  std::printf("dot_general jvp: %a %a\n", contracted_value.item<double>(), contracted_dot.item<double>());
  check_projection("dot_general", contracted_dot, tl::grad(contracted)(w), weights);

  // A model written with tl::nn's layers, whose forward functions are in their
  // header: layers captured by reference and one declared in the body, each reading
  // its entries of one Params through sub("..."), with and without a bias.
  const auto filled = [](const tl::Shape& s, double phase) {
    std::int64_t n = 1;
    for (std::int64_t d : s) n *= d;
    return tl::sin(tl::reshape(tl::arange(n).astype(tl::DType::f64), s) * 0.7 + phase);
  };
  const tl::nn::Embedding vocabulary{5, 3};
  const tl::nn::Linear fc1{3, 4}, fc2{4, 2, false};
  const tl::nn::LayerNorm norm{{4}};
  const tl::nn::RMSNorm rms{{2}};
  const tl::nn::Params net{{"vocabulary.weight", filled({5, 3}, 0.1)},
                           {"fc1.weight", filled({4, 3}, 0.2)},
                           {"fc1.bias", filled({4}, 0.3)},
                           {"norm.weight", filled({4}, 0.4) + 1.0},
                           {"norm.bias", filled({4}, 0.5)},
                           {"fc2.weight", filled({2, 4}, 0.6)},
                           {"rms.weight", filled({2}, 0.7) + 1.0},
                           {"out.weight", filled({2, 2}, 0.8)},
                           {"out.bias", filled({2}, 0.9)}};
  const tl::Tensor tokens = tl::tensor(std::vector<std::int64_t>{4, 1}, {2});
  const tl::Tensor wanted = f64({0.5, -0.5, 1, 0}, {2, 2});
  auto layered = [&](const tl::nn::Params& p) {
    const tl::nn::Linear out{2, 2};
    const tl::Tensor e = vocabulary(p.sub("vocabulary"), tokens) + x;
    const tl::Tensor h = tl::tanh(norm(p.sub("norm"), fc1(p.sub("fc1"), e)));
    return tl::nn::mse_loss(out(p.sub("out"), rms(p.sub("rms"), fc2(p.sub("fc2"), h))), wanted);
  };
  const tl::nn::Params layered_grads = tl::grad(layered)(net);
  report_list(
      "a model of tl::nn's layers", layered_grads.tensors(),
      [&](const std::vector<tl::Tensor>& ts) { return layered(net.with_tensors(ts)); }, net.tensors());
  if (layered_grads.names() != net.names()) {
    std::printf("FAIL a model of tl::nn's layers: the gradient's names differ from the parameters'\n");
    ++failures;
  }

  // A convolutional model of tl::nn's layers (Conv2d with padding, Conv2d in two
  // groups without a bias, MaxPool2d, AvgPool2d with a stride of its own, Linear) and
  // cross_entropy: its gradient with respect to the Params, and the Hessian with
  // respect to one image.
  const tl::nn::Conv2d conv1{.in_channels = 2, .out_channels = 4, .kernel = {3, 3}, .padding = {1, 1}};
  const tl::nn::Conv2d conv2{
      .in_channels = 4, .out_channels = 4, .kernel = {2, 2}, .groups = 2, .bias = false};
  const tl::nn::MaxPool2d pooled{};
  const tl::nn::AvgPool2d averaged{.kernel = {2, 2}, .stride = {1, 1}};
  const tl::nn::Linear classifier{4, 3};
  const tl::nn::Params cnn{{"conv1.weight", filled({4, 2, 3, 3}, 0.1)},
                           {"conv1.bias", filled({4}, 0.2)},
                           {"conv2.weight", filled({4, 2, 2, 2}, 0.3)},
                           {"classifier.weight", filled({3, 4}, 0.4)},
                           {"classifier.bias", filled({3}, 0.5)}};
  const tl::Tensor images = filled({2, 2, 6, 6}, 0.6);
  const tl::Tensor cnn_labels = tl::tensor(std::vector<std::int64_t>{2, 0}, {2});
  auto cnn_loss = [&](const tl::nn::Params& p) {
    const tl::Tensor h = pooled(tl::tanh(conv1(p.sub("conv1"), images)));
    const tl::Tensor features = tl::reshape(averaged(conv2(p.sub("conv2"), h)), {2, 4});
    return tl::nn::cross_entropy(classifier(p.sub("classifier"), features), cnn_labels);
  };
  report_list(
      "a convolutional model of tl::nn's layers", tl::grad(cnn_loss)(cnn).tensors(),
      [&](const std::vector<tl::Tensor>& ts) { return cnn_loss(cnn.with_tensors(ts)); }, cnn.tensors());
  const tl::Tensor cnn_image = filled({1, 2, 4, 4}, 0.7),
                   cnn_label = tl::tensor(std::vector<std::int64_t>{1}, {1});
  auto seen = [&](const tl::Tensor& im) {
    const tl::Tensor h = pooled(tl::tanh(conv1(cnn.sub("conv1"), im)));
    const tl::Tensor features = tl::reshape(conv2(cnn.sub("conv2"), h), {1, 4});
    return tl::nn::cross_entropy(classifier(cnn.sub("classifier"), features), cnn_label);
  };
  report_hessian_near("hessian of a convolutional model of tl::nn's layers", tl::hessian(seen),
                      tl::grad(seen), cnn_image);

  // tl::nn's attention layers, whose forward functions are in their header: a
  // TransformerBlock (causal, rotary, two query heads sharing one key/value head, the
  // SwiGLU MLP) after a MultiHeadAttention without a mask or rotation, with biases:
  // the gradient with respect to their Params, and the Hessian of the block with
  // respect to its input.
  const tl::nn::MultiHeadAttention mixing{.d_model = 4, .num_heads = 2};
  const tl::nn::TransformerBlock decoder{.d_model = 4, .num_heads = 2, .num_kv_heads = 1, .d_ff = 6};
  const tl::nn::Params attention_params{
      {"mix.q_proj.weight", filled({4, 4}, 0.1)},          {"mix.q_proj.bias", filled({4}, 0.2)},
      {"mix.k_proj.weight", filled({4, 4}, 0.3)},          {"mix.k_proj.bias", filled({4}, 0.4)},
      {"mix.v_proj.weight", filled({4, 4}, 0.5)},          {"mix.v_proj.bias", filled({4}, 0.6)},
      {"mix.o_proj.weight", filled({4, 4}, 0.7)},          {"mix.o_proj.bias", filled({4}, 0.8)},
      {"block.attn_norm.weight", filled({4}, 0.9) + 1.0},  {"block.attn.q_proj.weight", filled({4, 4}, 1.0)},
      {"block.attn.k_proj.weight", filled({2, 4}, 1.1)},   {"block.attn.v_proj.weight", filled({2, 4}, 1.2)},
      {"block.attn.o_proj.weight", filled({4, 4}, 1.3)},   {"block.mlp_norm.weight", filled({4}, 1.4) + 1.0},
      {"block.mlp.gate_proj.weight", filled({6, 4}, 1.5)}, {"block.mlp.up_proj.weight", filled({6, 4}, 1.6)},
      {"block.mlp.down_proj.weight", filled({4, 6}, 1.7)}};
  const tl::Tensor sequence = filled({2, 3, 4}, 1.8);
  auto attended = [&](const tl::nn::Params& p) {
    const tl::Tensor h = decoder(p.sub("block"), mixing(p.sub("mix"), sequence));
    return tl::mean(tl::square(h)) + tl::sum(h) * 0.1;
  };
  report_list(
      "tl::nn's attention layers", tl::grad(attended)(attention_params).tensors(),
      [&](const std::vector<tl::Tensor>& ts) { return attended(attention_params.with_tensors(ts)); },
      attention_params.tensors());
  auto mixed_in = [&](const tl::Tensor& s) {
    return tl::sum(tl::square(decoder(attention_params.sub("block"), s)));
  };
  const tl::Tensor short_sequence = filled({1, 3, 4}, 1.9);
  report_hessian_near("hessian of tl::nn's attention layers", tl::hessian(mixed_in), tl::grad(mixed_in),
                      short_sequence);

  // tl::nn's Dropout, whose forward function is in its header: its mask drawn from a
  // key (a constant, as when traced), in training and in evaluation.
  const tl::nn::Dropout dropped{.p = 0.25};
  const tl::random::Key dropout_key = tl::random::key(7);
  auto regularized = [&](const tl::Tensor& m) {
    const tl::Tensor h = dropped(tl::tanh(m * 2.0), dropout_key, true);
    return tl::sum(h * h) + tl::sum(dropped(m, dropout_key, false) * m);
  };
  report_near("tl::nn's Dropout", tl::grad(regularized), regularized, w);
  report_hessian_near("hessian through tl::nn's Dropout", tl::hessian(regularized), tl::grad(regularized), w);

  // tl::nn's MLP, whose forward function is in its header: its Linear layers read
  // under names built at run time ("layers.<i>"), and its activation, a std::function,
  // inlined from the lambda the MLP was made with, or its default (relu). The
  // gradient with respect to the Params of two MLPs, one under the other's output,
  // and the Hessian with respect to the input.
  const tl::nn::MLP trunk{.sizes = {3, 4, 4, 2},
                          .activation = [](const tl::Tensor& t) { return tl::tanh(t) * 0.5 + t; }};
  const tl::nn::MLP rectified{.sizes = {2, 3, 1}, .bias = false};
  const tl::nn::Params mlp_params{
      {"trunk.layers.0.weight", filled({4, 3}, 0.1)}, {"trunk.layers.0.bias", filled({4}, 0.2)},
      {"trunk.layers.1.weight", filled({4, 4}, 0.3)}, {"trunk.layers.1.bias", filled({4}, 0.4)},
      {"trunk.layers.2.weight", filled({2, 4}, 0.5)}, {"trunk.layers.2.bias", filled({2}, 0.6)},
      {"head.layers.0.weight", filled({3, 2}, 0.7)},  {"head.layers.1.weight", filled({1, 3}, 0.8)}};
  const tl::Tensor mlp_input = filled({5, 3}, 0.9);
  const tl::Tensor mlp_target = filled({5, 1}, 1.0);
  auto perceptrons = [&](const tl::nn::Params& p) {
    return tl::nn::mse_loss(rectified(p.sub("head"), trunk(p.sub("trunk"), mlp_input)), mlp_target);
  };
  report_list(
      "tl::nn's MLP", tl::grad(perceptrons)(mlp_params).tensors(),
      [&](const std::vector<tl::Tensor>& ts) { return perceptrons(mlp_params.with_tensors(ts)); },
      mlp_params.tensors());
  auto perceived = [&](const tl::Tensor& v) {
    return tl::sum(tl::square(trunk(mlp_params.sub("trunk"), v)));
  };
  const tl::Tensor mlp_point = filled({2, 3}, 1.1);
  report_hessian_near("hessian of tl::nn's MLP", tl::hessian(perceived), tl::grad(perceived), mlp_point);

  // tl::nn's DecoderLM, whose forward function is in its header: two TransformerBlocks
  // read as "blocks.<i>" in a loop, the embedding, norm and output layers made as
  // temporaries in its body; the gradient of a next-token loss with respect to its
  // Params (its initialization, in f64).
  const tl::nn::DecoderLM language{
      .vocab = 7, .d_model = 4, .num_layers = 2, .num_heads = 2, .num_kv_heads = 1, .d_ff = 6};
  const tl::nn::Params initialized = language.init(tl::random::key(11));
  std::vector<tl::Tensor> language_f64;
  for (const tl::Tensor& t : initialized.tensors()) language_f64.push_back(t.astype(tl::DType::f64));
  const tl::nn::Params language_params = initialized.with_tensors(language_f64);
  const tl::Tensor prompt = tl::tensor(std::vector<std::int64_t>{1, 3, 5, 2, 6, 0}, {2, 3});
  const tl::Tensor next_tokens = tl::tensor(std::vector<std::int64_t>{3, 5, 2, 6, 0, 1}, {6});
  auto next_token_loss = [&](const tl::nn::Params& p) {
    return tl::nn::cross_entropy(tl::reshape(language(p, prompt), {6, 7}), next_tokens);
  };
  report_list(
      "tl::nn's DecoderLM", tl::grad(next_token_loss)(language_params).tensors(),
      [&](const std::vector<tl::Tensor>& ts) { return next_token_loss(language_params.with_tensors(ts)); },
      language_params.tensors());

  // tl::nn's GRU, whose apply is in its header: a tl::scan over the time steps, its
  // result an aggregate of two tensors read by name (`.outputs`, `.h_last`) or bound
  // by a structured binding. The gradient with respect to the Params of a GRU with
  // biases, and the Hessian of one without with respect to its first hidden state.
  const tl::nn::GRU recurrent{.input_size = 3, .hidden_size = 2};
  const tl::nn::GRU unbiased{.input_size = 2, .hidden_size = 2, .bias = false};
  const tl::nn::Params gru_params{{"weight_ih_l0", filled({6, 3}, 0.1)},
                                  {"weight_hh_l0", filled({6, 2}, 0.2)},
                                  {"bias_ih_l0", filled({6}, 0.3)},
                                  {"bias_hh_l0", filled({6}, 0.4)}};
  const tl::nn::Params unbiased_params{{"weight_ih_l0", filled({6, 2}, 0.5)},
                                       {"weight_hh_l0", filled({6, 2}, 0.6)}};
  const tl::Tensor gru_input = filled({2, 4, 3}, 0.7);
  const tl::Tensor gru_h0 = filled({2, 2}, 0.8);
  auto recurred = [&](const tl::nn::Params& p) {
    const tl::nn::GRU::Result r = recurrent.apply(p, gru_input, gru_h0);
    return tl::sum(tl::square(r.outputs)) + tl::sum(r.h_last * 0.5);
  };
  report_list(
      "tl::nn's GRU", tl::grad(recurred)(gru_params).tensors(),
      [&](const std::vector<tl::Tensor>& ts) { return recurred(gru_params.with_tensors(ts)); },
      gru_params.tensors());
  auto from_state = [&](const tl::Tensor& h) {
    auto [outputs, last] =
        unbiased.apply(unbiased_params, tl::slice(tl::tanh(gru_input * 0.5 + 0.1), 2, 0, 2), h);
    return tl::sum(outputs * tl::reshape(last, {2, 1, 2}));
  };
  report_near("tl::nn's GRU by its first state", tl::grad(from_state), from_state, gru_h0);
  report_hessian_near("hessian of tl::nn's GRU by its first state", tl::hessian(from_state),
                      tl::grad(from_state), gru_h0);

  // Types of the user's file (here in an anonymous namespace) in a gradient, and in
  // the Hessian, whose second parse reads the gradient after the user's code.
  const Weights weighting{1.5, 0.25};
  auto by_curve = [&](const tl::Tensor& v) { return shaped(v, weighting, Curve::saddle); };
  report_near("a user's types", tl::grad(by_curve), by_curve, w);
  report_hessian_near("hessian with a user's types", tl::hessian(by_curve), tl::grad(by_curve), w);

  // Derived ops, whose bodies the tool differentiates as the trace records them: a
  // rank-0 softmax and log_softmax (a vector of one element), logsumexp without
  // keepdims, outer.
  auto derived = [](const tl::Tensor& v) {
    const tl::Tensor sq = tl::sum(v * v);
    const tl::Tensor crossed = tl::outer(tl::sum(v, {1}), tl::logsumexp(v, {0}));
    return tl::sum(crossed * v) + tl::softmax(sq) * sq + tl::log_softmax(sq * 0.5);
  };
  report_near("derived ops", tl::grad(derived), derived, w);
  report_hessian_near("hessian through derived ops", tl::hessian(derived), tl::grad(derived), w);
  auto [derived_value, derived_dot] = tl::jvp(derived, w, weights);
  std::printf("derived ops jvp: %a %a\n", derived_value.item<double>(), derived_dot.item<double>());
  check_projection("derived ops", derived_dot, tl::grad(derived)(w), weights);

  // A std::vector<tl::Tensor> as the state of tl::fori_loop, tl::while_loop and
  // tl::cond: an integrator carrying a position, a velocity and a stiffness passed
  // through unchanged; a local list read by index, .at, .front, .back and .size; a
  // lambda taking the list.
  auto orbit = [&](const tl::Tensor& v) {
    const std::vector<tl::Tensor> state{w * 0.5, v, tl::sum(v * v) * 0.1};
    const auto kinetic = [](const std::vector<tl::Tensor>& s) { return tl::sum(s[1] * s[1]) * 0.5; };
    const std::vector<tl::Tensor> swung = tl::fori_loop(
        0, 5,
        [&](const tl::Tensor& i, const std::vector<tl::Tensor>& s) {
          const tl::Tensor a = -tl::sin(s[0]) * s.back() + i.astype(tl::DType::f64) * 0.01;
          return std::vector<tl::Tensor>{s.at(0) + s[1] * 0.1, s[1] + a * 0.1, s[2]};
        },
        state);
    const auto settled =
        tl::while_loop([](const std::vector<tl::Tensor>& s) { return tl::sum(s[0] * s[0]) > 0.05; },
                       [&](const std::vector<tl::Tensor>& s) {
                         return std::vector<tl::Tensor>{s[0] * 0.5, s[1] + s[0] * v};
                       },
                       std::vector<tl::Tensor>{swung.front(), swung[1] * 0.5});
    const std::vector<tl::Tensor> picked_pair = tl::cond(
        tl::sum(v) > 0.0,
        [&] {
          return std::vector<tl::Tensor>{settled[0] * 2.0, settled[1]};
        },
        [&] {
          return std::vector<tl::Tensor>{settled[1], settled[0] - v};
        });
    return tl::sum(picked_pair[0] * picked_pair[1]) + kinetic(swung) * double(swung.size()) +
           tl::sum(tl::fori_loop(
                       0, 2, [](const tl::Tensor&, const std::vector<tl::Tensor>& s) { return s; },
                       std::vector<tl::Tensor>{v})[0] *
                   swung[2]);
  };
  report_near("vector states", tl::grad(orbit), orbit, w);
  report_near("vector states, else", tl::grad(orbit), orbit, -w);
  report_hessian_near("hessian through vector states", tl::hessian(orbit), tl::grad(orbit), w);
  auto [orbit_value, orbit_dot] = tl::jvp(orbit, w, weights);
  std::printf("vector states jvp: %a %a\n", orbit_value.item<double>(), orbit_dot.item<double>());
  check_projection("vector states", orbit_dot, tl::grad(orbit)(w), weights);

  // Hessians of a function reading a list and a Params it captures (not differentiated).
  auto read_both = [&layers, &model](const tl::Tensor& m) {
    return tl::sum(tl::tanh(m * model.at("hidden.weight")) * layers[1]) +
           tl::sum(tl::sin(m) * m * layers.at(4));
  };
  report_near("a list and a Params captured", tl::grad(read_both), read_both, w);
  report_hessian_near("hessian with a list and a Params captured", tl::hessian(read_both),
                      tl::grad(read_both), w);

  // Returns inside nested loops: from the inner loop (every loop leaves), from a
  // loop inside a branch of the outer body, or none and the rest of the body.
  for (const int limit : {2, 5, 60, 40}) {
    auto searched = [limit](const tl::Tensor& m) {
      tl::Tensor h = m;
      int n = 0;
      for (int i = 0; i < 3; ++i) {
        for (int j = 0; j < 3; ++j) {
          h = tl::sin(h) + m * 0.1;
          ++n;
          if (n == limit) return tl::sum(h * m);
        }
        h = h * 1.5;
        if (i == 1) {
          for (int j = 0; j < 2; ++j) {
            h = h + m * double(j);
            if (n * 10 == limit) return tl::sum(h * h) * 0.5;
          }
        }
      }
      return tl::sum(h * h);
    };
    const std::string name = "returns in nested loops, limit " + std::to_string(limit);
    report_near(name, tl::grad(searched), searched, w);
    report_hessian_near(name + ", hessian", tl::hessian(searched), tl::grad(searched), w);
    auto [searched_value, searched_dot] = tl::jvp(searched, w, weights);
    std::printf("%s jvp: %a %a\n", name.c_str(), searched_value.item<double>(), searched_dot.item<double>());
    check_projection(name.c_str(), searched_dot, tl::grad(searched)(w), weights);
  }

  // The Hessian through two tl::scans, one reversed: forward mode over a gradient
  // that writes each step's cotangent by index and stacks them.
  report_hessian_near("hessian through tl::scan", tl::hessian(scanned), tl::grad(scanned), w);

  // A tl::scan carrying a std::vector<tl::Tensor> (an LSTM cell's hidden and cell
  // states) over the rows of a sequence: gradient, Hessian and jvp.
  const tl::Tensor lstm_rows = tl::reshape(tl::sin(tl::arange(12).astype(tl::DType::f64)), {4, 1, 3});
  auto lstm = [&](const tl::Tensor& u) {
    auto [state, hs] = tl::scan(
        [&u](const std::vector<tl::Tensor>& s, const tl::Tensor& step_input) {
          const tl::Tensor gates =
              tl::matmul(tl::concat({s[0], step_input}, 1), tl::concat({u, u * 0.5, u - 0.1, u * u}, 1));
          const tl::Tensor i = tl::sigmoid(tl::slice(gates, 1, 0, 2));
          const tl::Tensor f = tl::sigmoid(tl::slice(gates, 1, 2, 4));
          const tl::Tensor o = tl::sigmoid(tl::slice(gates, 1, 4, 6));
          const tl::Tensor c = f * s[1] + i * tl::tanh(tl::slice(gates, 1, 6, 8));
          const tl::Tensor h = o * tl::tanh(c);
          return std::pair<std::vector<tl::Tensor>, tl::Tensor>{{h, c}, h};
        },
        std::vector<tl::Tensor>{tl::slice(u, 0, 0, 1), tl::slice(u, 0, 1, 2) * 0.5},
        tl::slice(lstm_rows, 2, 0, 1));
    return tl::sum(tl::square(hs)) + tl::sum(state[1] * state[0]);
  };
  report_near("tl::scan with a vector carried", tl::grad(lstm), lstm, w);
  report_hessian_near("hessian through tl::scan with a vector carried", tl::hessian(lstm), tl::grad(lstm), w);
  auto [lstm_value, lstm_dot] = tl::jvp(lstm, w, weights);
  std::printf("tl::scan with a vector carried, jvp: %a %a\n", lstm_value.item<double>(),
              lstm_dot.item<double>());
  check_projection("tl::scan with a vector carried", lstm_dot, tl::grad(lstm)(w), weights);

  // A tl::scan over a std::vector of sequences sliced together (the parameter twice,
  // a function of it and a constant), the parameter also used inside; then one over
  // a local vector of two, reversed, with two outputs per step, and one whose
  // outputs are read from its .second: gradient, Hessian and jvp.
  const tl::Tensor drive = tl::reshape(tl::cos(tl::arange(6).astype(tl::DType::f64)), {3, 2});
  auto zipped = [&](const tl::Tensor& m) {
    auto [final_carry, outs] = tl::scan(
        [&](const tl::Tensor& c, const std::vector<tl::Tensor>& slices) {
          const tl::Tensor next =
              tl::tanh(c * slices[0] + slices[1] * slices[2]) + tl::mean(m, {0}) * slices[3];
          return std::pair{next, next * slices[1]};
        },
        tl::sum(m, {0}) * 0.1, std::vector<tl::Tensor>{m, tl::sin(m) * 2.0, drive, m});
    const std::vector<tl::Tensor> both{outs, tl::exp(outs * 0.5)};
    auto [back, ys_back] = tl::scan(
        [](const tl::Tensor& c, const std::vector<tl::Tensor>& duo) {
          return std::make_pair(c + duo.front() * duo.back() * c,
                                std::vector<tl::Tensor>{tl::sin(duo[0]) + c, duo[1] * c});
        },
        final_carry, both, true);
    const tl::Tensor cumulative = tl::scan(
                                      [](const tl::Tensor& c, const tl::Tensor& o) {
                                        return std::pair{c + o, std::vector<tl::Tensor>{c, o * c}};
                                      },
                                      back, outs)
                                      .second[1];
    return tl::sum(final_carry * final_carry) + tl::sum(outs * outs) + tl::sum(back) +
           tl::sum(ys_back[0] * ys_back[0]) + tl::sum(ys_back[1]) + tl::sum(tl::cos(cumulative));
  };
  report_near("tl::scan over a vector of sequences", tl::grad(zipped), zipped, w);
  report_hessian_near("hessian through tl::scan over a vector of sequences", tl::hessian(zipped),
                      tl::grad(zipped), w);
  auto [zipped_value, zipped_dot] = tl::jvp(zipped, w, weights);
  std::printf("tl::scan over a vector of sequences, jvp: %a %a\n", zipped_value.item<double>(),
              zipped_dot.item<double>());
  check_projection("tl::scan over a vector of sequences", zipped_dot, tl::grad(zipped)(w), weights);
  // A permutation and concatenation axes known only at run time, negative ones among
  // them: the transposes' cotangents are the library's transpose_backward.
  const int last_axis = int(w.rank()) - 1;
  auto turned_at_run_time = [&](const tl::Tensor& m) {
    const tl::Tensor block = tl::reshape(tl::concat({m, tl::sin(m)}, last_axis), {3, 2, 2});
    const tl::Tensor turned =
        tl::transpose(block, {block.rank() - 1, 0, -2}) * tl::permute(tl::cos(block), {-1, 0, 1});
    return tl::sum(turned * turned) + tl::sum(tl::concat({m * m, tl::exp(m)}, -last_axis - 1) * 0.5);
  };
  report_near("permutation and axes at run time", tl::grad(turned_at_run_time), turned_at_run_time, w);
  report_hessian_near("hessian with a permutation and axes at run time", tl::hessian(turned_at_run_time),
                      tl::grad(turned_at_run_time), w);
  // Returns in loops inside a branch of the body: the branch's path goes on with the
  // rest of its loop and of the body where no return is taken, and a second loop that
  // returns follows the first. Each limit takes another return.
  const char* const return_names[] = {"return in a loop in a branch: the first loop's",
                                      "return in a loop in a branch: the second loop's",
                                      "return in a loop in a branch: none taken"};
  for (const int limit : {1, 5, 9}) {
    auto returns_in_branch = [limit](const tl::Tensor& m) {
      tl::Tensor r = tl::sin(m);
      if (limit > 0) {
        for (int j = 0; j < 3; ++j) {
          r = tl::sin(r) * 1.5;
          if (j == limit) return tl::sum(r * m);
        }
        r = r * r;
        for (int i = 0; i < 2; ++i) {
          r = tl::cos(r) + m;
          if (i == limit - 4) return tl::sum(r);
        }
      }
      return tl::sum(r * r * m);
    };
    const char* name = return_names[limit / 4];
    report_near(name, tl::grad(returns_in_branch), returns_in_branch, w);
    report_hessian_near(name, tl::hessian(returns_in_branch), tl::grad(returns_in_branch), w);
    auto [branch_value, branch_dot] = tl::jvp(returns_in_branch, w, weights);
    std::printf("%s, jvp: %a %a\n", name, branch_value.item<double>(), branch_dot.item<double>());
    check_projection(name, branch_dot, tl::grad(returns_in_branch)(w), weights);
  }
  // Scalars that a loop inside a branch changes, read after the loop: in the branch,
  // through an inner if's join in an outer branch, and in a branch of a loop's body
  // (a final value per iteration). Each level takes other paths.
  const char* const settled_names[] = {"loops in branches, level 0", "loops in branches, level 1",
                                       "loops in branches, level 2"};
  for (const int level : {0, 1, 2}) {
    auto loop_in_branch = [level](const tl::Tensor& m) {
      tl::Tensor r = tl::sin(m);
      if (level > 0) {
        double u = 1.0;
        for (int j = 0; j < 2; ++j) u = u * 1.5;
        r = tl::sin(r) * u;
      }
      double v = 0.5;
      if (level != 1) {
        double s = 2.0;
        if (level == 2) {
          for (int j = 0; j < 3; ++j) s = s - 0.25 * j;
        }
        r = r * s + tl::cos(r);
        v = v + s;
      }
      for (int i = 0; i < 3; ++i) {
        if (i != level) {
          double t = 1.0 + i;
          for (int j = 0; j < i; ++j) t = t * v;
          r = tl::sin(r) * t;
        }
      }
      return tl::sum(r * m);
    };
    const char* name = settled_names[level];
    report_near(name, tl::grad(loop_in_branch), loop_in_branch, w);
    report_hessian_near(name, tl::hessian(loop_in_branch), tl::grad(loop_in_branch), w);
    auto [settled_value, settled_dot] = tl::jvp(loop_in_branch, w, weights);
    std::printf("%s, jvp: %a %a\n", name, settled_value.item<double>(), settled_dot.item<double>());
    check_projection(name, settled_dot, tl::grad(loop_in_branch)(w), weights);
  }
  // A value passed through a `?:` in the rest of a body that an early return inside a
  // branch lowers once per path: on the path that takes the parameter, the `?:`'s
  // cotangent is the parameter's (found by the random programs: seed 51 at depth 4).
  const char* const path_names[] = {"passed through in a path, level 0", "passed through in a path, level 1",
                                    "passed through in a path, level 2"};
  for (const int level : {0, 1, 2}) {
    auto passed_in_path = [level](const tl::Tensor& m) {
      tl::Tensor r = tl::sin(m);
      if (level != 1) {
        r = tl::cos(r * m);
      } else {
        if (level == 3) return tl::sum(m * m);
        r = tl::sin(m + m * 0.5);
      }
      return tl::sum((tl::tanh(m) + (level != 2 ? m : r)) * m);
    };
    const char* name = path_names[level];
    report_near(name, tl::grad(passed_in_path), passed_in_path, w);
    report_hessian_near(name, tl::hessian(passed_in_path), tl::grad(passed_in_path), w);
    auto [path_value, path_dot] = tl::jvp(passed_in_path, w, weights);
    std::printf("%s, jvp: %a %a\n", name, path_value.item<double>(), path_dot.item<double>());
    check_projection(name, path_dot, tl::grad(passed_in_path)(w), weights);
  }
  // A tl::cond whose result nothing reads: the engine skips the reverse of an op none
  // of whose results has a cotangent, and so does the generated gradient (the zeros its
  // regions give what they use would turn the Hessian's -0s into +0s).
  auto unread_cond = [](const tl::Tensor& m) {
    const tl::Tensor r = tl::log_softmax(m, 0);
    [[maybe_unused]] const tl::Tensor unread = tl::cond(
        tl::sum(m) > 0.1, [&] { return r; }, [&] { return m; });
    return tl::sum(tl::cos(m) * m);
  };
  report_near("unread tl::cond", tl::grad(unread_cond), unread_cond, w);
  report_hessian_near("unread tl::cond", tl::hessian(unread_cond), tl::grad(unread_cond), w);
  // A tl::scan after an early return: the rest of the body is a path of the returning
  // if, and the scan's check of its sequence's length a check inside a branch (which the
  // Hessian's second lowering takes, and its reverse sweep leaves out).
  for (const int level : {0, 3}) {
    auto scan_after_return = [level](const tl::Tensor& m) {
      if (level == 3) return tl::sum(m * m);
      auto [last, outs] = tl::scan(
          [](const tl::Tensor& c, const tl::Tensor& step) {
            return std::pair{tl::tanh(c * step), c * step};
          },
          tl::sum(m, {0}) * 0.1, tl::cos(m));
      return tl::sum(outs * m) + tl::sum(last);
    };
    const char* name =
        level == 0 ? "tl::scan after an early return" : "tl::scan after an early return, taken";
    report_near(name, tl::grad(scan_after_return), scan_after_return, w);
    report_hessian_near(name, tl::hessian(scan_after_return), tl::grad(scan_after_return), w);
  }
  // Forward mode through a custom_vjp function: refused, traced or generated, with the
  // same error.
  try {
    tl::jvp(logged, w, weights);
    std::printf("jvp through custom_vjp: no error\n");
  } catch (const tl::NotDifferentiableError& e) {
    const std::string what = e.what();
    std::printf("jvp through custom_vjp: tl::NotDifferentiableError: %s\n",
                what.substr(what.find("the custom_vjp function")).c_str());
  }
  // tl::split into sections and into sizes, negative axes among them, in a loop and in
  // a branch, and indexed at once: each part a slice of the tensor split, as the library
  // takes it. Sections that do not divide the axis: split's own tl::ShapeError.
  for (const int level : {0, 1}) {
    auto parted = [level](const tl::Tensor& m) {
      const std::vector<tl::Tensor> parts = tl::split(tl::sin(m), 3, -2);
      tl::Tensor r = tl::concat({parts[2] * 0.5, parts[0], tl::sin(parts[1])}, 0) * m;
      for (int i = 0; i < 2; ++i) {
        const std::vector<tl::Tensor> halves = tl::split(r, {1, 1}, 1);
        r = tl::concat({halves[1], halves[0] * halves[0]}, 1) + m;
        if (level == 1) {
          auto columns = tl::split(tl::cos(r), std::vector<std::int64_t>{1, 1}, -1);
          r = r * columns.back();
        }
      }
      return tl::sum(r * tl::split(m, 3)[1]);
    };
    const char* name = level == 0 ? "tl::split" : "tl::split, the branch taken";
    report_near(name, tl::grad(parted), parted, w);
    report_hessian_near(name, tl::hessian(parted), tl::grad(parted), w);
    auto [parted_value, parted_dot] = tl::jvp(parted, w, weights);
    std::printf("%s, jvp: %a %a\n", name, parted_value.item<double>(), parted_dot.item<double>());
    check_projection(name, parted_dot, tl::grad(parted)(w), weights);
  }
  auto uneven = [](const tl::Tensor& m) { return tl::sum(tl::split(m, 4, 1)[0]); };
  try {
    tl::grad(uneven)(w);
    std::printf("tl::split into 4 sections of 2: no error\n");
  } catch (const tl::ShapeError& e) {
    std::printf("tl::split into 4 sections of 2: tl::ShapeError: %s\n", e.what());
  }
  // Sequences of different lengths: a tl::ShapeError, traced or generated.
  auto unequal = [&](const tl::Tensor& m) {
    return tl::sum(tl::scan(
                       [](const tl::Tensor& c, const std::vector<tl::Tensor>& slices) {
                         return std::pair{c + slices[0] * slices[1], c};
                       },
                       tl::zeros({2}, tl::DType::f64), std::vector<tl::Tensor>{m, tl::slice(m, 0, 0, 2)})
                       .first);
  };
  try {
    tl::grad(unequal)(w);
    std::printf("tl::scan over sequences of 3 and 2 steps: no error\n");
  } catch (const tl::ShapeError&) {
    std::printf("tl::scan over sequences of 3 and 2 steps: tl::ShapeError\n");
  }

  // Edge pads in reverse mode, each its operand's only use: widths on both axes, and
  // an axis of size 1 padded by one on each side (the border is the element itself).
  auto replicated = [](const tl::Tensor& v) {
    const tl::Tensor wide = tl::pad(tl::sin(v), {{1, 2}, {0, 1}}, tl::PadMode::edge);
    const tl::Tensor thin = tl::pad(tl::sum(v * v, {1}, true), {{0, 0}, {1, 1}}, tl::PadMode::edge);
    return tl::sum(wide * wide) + tl::sum(tl::cos(thin) * thin);
  };
  report_near("edge pads", tl::grad(replicated), replicated, w);
  report_hessian_near("hessian through edge pads", tl::hessian(replicated), tl::grad(replicated), w);
  auto [replicated_value, replicated_dot] = tl::jvp(replicated, w, weights);
  std::printf("edge pads jvp: %a %a\n", replicated_value.item<double>(), replicated_dot.item<double>());
  check_projection("edge pads", replicated_dot, tl::grad(replicated)(w), weights);

  // tl::nn's BatchNorm2d, whose forward function is in its header: normalized over
  // the batch in training, by running statistics in evaluation; the running
  // statistics it returns beside its output are not followed. The gradient with
  // respect to the Params of a convolution and two BatchNorm2d (one without affine
  // parameters), and the Hessian and a jvp with respect to the images.
  const tl::nn::Conv2d bn_conv{.in_channels = 2, .out_channels = 3, .kernel = {2, 2}};
  const tl::nn::BatchNorm2d bn_train{.num_features = 3}, bn_plain{.num_features = 3, .affine = false};
  const tl::nn::Params bn_params{{"conv.weight", filled({3, 2, 2, 2}, 0.1)},
                                 {"conv.bias", filled({3}, 0.2)},
                                 {"bn.weight", filled({3}, 0.3) + 1.0},
                                 {"bn.bias", filled({3}, 0.4)}};
  const tl::nn::Params bn_state{{"running_mean", filled({3}, 0.5)},
                                {"running_var", filled({3}, 0.6) + 1.0},
                                {"num_batches_tracked", tl::full({}, std::int64_t{3}, tl::DType::i64)}};
  const tl::Tensor bn_images = filled({2, 2, 3, 3}, 0.7);
  auto by_params = [&](const tl::nn::Params& p) {
    const tl::Tensor h = bn_conv(p.sub("conv"), bn_images);
    const tl::nn::BatchNorm2d::Result trained = bn_train(p.sub("bn"), bn_state, h, true);
    const tl::Tensor evaluated = bn_plain(p.sub("bn"), bn_state, tl::tanh(h), false).y;
    return tl::sum(tl::square(trained.y) * tl::sin(h)) + tl::sum(evaluated * trained.y);
  };
  report_list(
      "tl::nn's BatchNorm2d", tl::grad(by_params)(bn_params).tensors(),
      [&](const std::vector<tl::Tensor>& ts) { return by_params(bn_params.with_tensors(ts)); },
      bn_params.tensors());
  // The same model with respect to the images, its results bound by name.
  auto by_images = [&](const tl::Tensor& im) {
    const auto [trained, running] =
        bn_train(bn_params.sub("bn"), bn_state, bn_conv(bn_params.sub("conv"), im), true);
    return tl::sum(tl::square(trained) * tl::sum(im) / 9.0) +
           tl::sum(bn_plain(bn_params.sub("bn"), bn_state, trained, false).y);
  };
  report_hessian_near("hessian of tl::nn's BatchNorm2d", tl::hessian(by_images), tl::grad(by_images),
                      bn_images);
  const tl::Tensor bn_direction = filled({2, 2, 3, 3}, 0.8);
  auto [bn_value, bn_dot] = tl::jvp(by_images, bn_images, bn_direction);
  std::printf("tl::nn's BatchNorm2d jvp: %a %a\n", bn_value.item<double>(), bn_dot.item<double>());
  check_projection("tl::nn's BatchNorm2d", bn_dot, tl::grad(by_images)(bn_images), bn_direction);

  // The elementwise ops whose rules the tool runs at build time and no case above
  // calls, each in its domain, and an average pool whose cotangent moves with the
  // input (so that the Hessian differentiates tl::avg_pool2d_backward): with these,
  // every rule tlaloc-grad has is applied in this file or in the random programs
  // (test grad_tool.every_rule_applied).
  auto elementary = [](const tl::Tensor& v) {
    const tl::Tensor smoothed = tl::avg_pool2d(tl::reshape(v * v, {1, 1, 3, 2}),
                                               {.kernel = {2, 2}, .stride = {1, 1}, .padding = {1, 1}});
    const tl::Tensor inside = tl::tanh(v) * 0.9, above = v * v + 1.5;
    const tl::Tensor inverse = tl::asin(inside) * tl::acos(inside) + tl::atanh(inside) * tl::atan(v * 2.0) +
                               tl::acosh(above) * tl::asinh(v);
    const tl::Tensor hyperbolic = tl::sinh(v) * tl::cosh(v) + tl::tan(v * 0.5) * tl::abs(v);
    const tl::Tensor near_one =
        tl::expm1(v) * tl::log1p(above) + tl::reciprocal(above) + tl::rsqrt(above) * v;
    return tl::sum(inverse * hyperbolic + near_one * near_one) + tl::sum(tl::square(smoothed));
  };
  report_near("elementwise functions", tl::grad(elementary), elementary, w);
  report_hessian_near("hessian of elementwise functions", tl::hessian(elementary), tl::grad(elementary), w);
  auto [elementary_value, elementary_dot] = tl::jvp(elementary, w, weights);
  std::printf("elementwise functions jvp: %a %a\n", elementary_value.item<double>(),
              elementary_dot.item<double>());
  check_projection("elementwise functions", elementary_dot, tl::grad(elementary)(w), weights);
  // A user's own forward mode of max over rows, through the library's tl::extreme_jvp
  // (which has a forward rule only): its jvp, against a central difference along the
  // direction (exact but for rounding: the function is quadratic in t).
  auto routed = [&](const tl::Tensor& t) { return tl::sum(tl::derivatives::extreme_jvp(t * t, w, tl::max(w, {1}), {1})); };
  const tl::Tensor u = f64({1, 2, 3, -1, 0.5, 2}, {3, 2});
  auto [routed_value, routed_dot] = tl::jvp(routed, u, weights);
  std::printf("tl::extreme_jvp jvp: %a %a\n", routed_value.item<double>(), routed_dot.item<double>());
  const double routed_difference =
      (routed(u + weights * 1e-6).item<double>() - routed(u - weights * 1e-6).item<double>()) / 2e-6;
  if (std::abs(routed_dot.item<double>() - routed_difference) > 1e-6 * (1 + std::abs(routed_difference))) {
    std::printf("FAIL tl::extreme_jvp jvp: %.17g, central difference %.17g\n", routed_dot.item<double>(),
                routed_difference);
    ++failures;
  }

  // A scalar read from a field of an aggregate of tensors the function holds (the
  // BatchNorm2d's result: `r.y.numel()`, `r.y.shape()[1]`).
  auto by_field = [&](const tl::Tensor& im) {
    const tl::nn::BatchNorm2d::Result r =
        bn_train(bn_params.sub("bn"), bn_state, bn_conv(bn_params.sub("conv"), im), true);
    const double count = double(r.y.numel());
    return tl::sum(tl::sin(r.y) * im.shape()[0]) * double(r.y.shape()[1]) / count;
  };
  report_near("a field's shape read in a scalar", tl::grad(by_field), by_field, bn_images);

  // Forward mode of a function of a list (the one whose gradients are above), a
  // tangent for each tensor: against the gradients' projection; tangents that do not
  // match the list are refused as tl::jvp refuses them.
  std::vector<tl::Tensor> directions;
  for (std::size_t k = 0; k < layers.size(); ++k) directions.push_back(tl::cos(layers[k] * double(k + 1)));
  auto [listed_value, listed_dot] = tl::jvp(stacked, layers, directions);
  std::printf("a list of parameters jvp: %a %a\n", listed_value.item<double>(), listed_dot.item<double>());
  tl::Tensor listed_along = tl::zeros({}, tl::DType::f64);
  for (std::size_t k = 0; k < layers.size(); ++k)
    listed_along = listed_along + tl::sum(stacked_grads[k] * directions[k]);
  check_projection("a list of parameters", listed_dot, listed_along, tl::ones({}, tl::DType::f64));
  for (const std::vector<tl::Tensor>& wrong :
       {std::vector<tl::Tensor>{directions[0]},
        std::vector<tl::Tensor>{directions[1], directions[0], directions[2], directions[3], directions[4]}}) {
    try {
      (void)tl::jvp(stacked, layers, wrong);
      std::printf("FAIL a list of parameters jvp: %zu tangents taken\n", wrong.size());
      ++failures;
    } catch (const tl::ValueError& e) {
      std::printf("a list of parameters jvp refused: %s\n", e.what());
    }
  }
  // An element read by .at(i) keeps its bounds check: an index past the list throws,
  // as it does traced.
  auto past_end = [](const std::vector<tl::Tensor>& ps) { return tl::sum(ps.at(ps.size())); };
  try {
    (void)tl::grad(past_end)(layers);
    std::printf("FAIL a list read past its end: no exception\n");
    ++failures;
  } catch (const std::out_of_range&) {
    std::printf("a list read past its end: std::out_of_range\n");
  }

  // Range-fors over a list, each element read at the loop's own counter: over the
  // differentiated list (with a continue, a copy assigned again, one nested in
  // another), and over a captured list in a function of a tensor, with a return.
  auto ranged_list = [&x](const std::vector<tl::Tensor>& ps) {
    tl::Tensor h = tl::zeros({2}, tl::DType::f64);
    double k = 1.0;
    for (const tl::Tensor& p : ps) {
      k = k * 0.5;
      if (p.rank() == 2) continue;
      h = h + tl::sin(p) * k;
    }
    for (tl::Tensor p : ps) {
      p = tl::tanh(p);
      for (const auto& q : ps)
        if (q.shape() == p.shape()) h = h + tl::sum(p * q) * 0.1;
    }
    return tl::sum(h * h) + tl::sum(tl::matmul(x, ps.front()));
  };
  const std::vector<tl::Tensor> ranged_list_grads = tl::grad(ranged_list)(layers);
  report_list("a range-for over a list", ranged_list_grads, ranged_list, layers);
  auto [ranged_list_value, ranged_list_dot] = tl::jvp(ranged_list, layers, directions);
  std::printf("a range-for over a list jvp: %a %a\n", ranged_list_value.item<double>(),
              ranged_list_dot.item<double>());
  tl::Tensor ranged_list_along = tl::zeros({}, tl::DType::f64);
  for (std::size_t k = 0; k < layers.size(); ++k)
    ranged_list_along = ranged_list_along + tl::sum(ranged_list_grads[k] * directions[k]);
  check_projection("a range-for over a list", ranged_list_dot, ranged_list_along,
                   tl::ones({}, tl::DType::f64));
  auto through_layers = [&layers](const tl::Tensor& m) {
    tl::Tensor h = tl::matmul(m, layers[0]);
    int passed = 0;
    for (const auto& p : layers) {
      passed += 1;
      if (passed == 1) continue;
      if (p.rank() == 2)
        h = tl::tanh(tl::matmul(h, p));
      else
        h = h + p;
      if (passed == 4) return tl::sum(h * h);
    }
    return tl::sum(h);
  };
  report_near("a range-for over a captured list", tl::grad(through_layers), through_layers, x);
  auto [through_value, through_dot] = tl::jvp(through_layers, x, tl::cos(x));
  std::printf("a range-for over a captured list jvp: %a %a\n", through_value.item<double>(),
              through_dot.item<double>());
  check_projection("a range-for over a captured list", through_dot, tl::grad(through_layers)(x), tl::cos(x));

  // A range-for over a Params by a structured binding: weight decay over every entry
  // but the biases, whose names the body reads, after entries read by position; and
  // over a captured Params' entries(), also in a Hessian.
  auto decayed = [&x](const tl::nn::Params& p) {
    tl::Tensor loss = tl::sum(tl::tanh(tl::matmul(x, p.at("hidden.weight")) + p.at("hidden.bias")));
    for (std::size_t i = 0; i < p.size(); ++i)
      if (i % 2 == 1) loss = loss + tl::sum(tl::sin(p.entries()[i].second)) * 0.1;
    for (const auto& [name, weight] : p) {
      if (name.ends_with("bias")) continue;
      loss = loss + tl::sum(weight * weight) * 0.01;
    }
    return loss;
  };
  report_params("a range-for over a Params", tl::grad(decayed)(model), decayed);
  auto captured_decay = [&model](const tl::Tensor& m) {
    tl::Tensor loss = tl::sum(m * m);
    for (const auto& [name, weight] : model.entries())
      if (weight.rank() == 1) loss = loss + tl::sum(tl::sin(m) * tl::sum(weight));
    return loss;
  };
  report_near("a range-for over a captured Params", tl::grad(captured_decay), captured_decay, x);
  report_hessian_near("hessian of a range-for over a captured Params", tl::hessian(captured_decay),
                      tl::grad(captured_decay), x);
  auto [decay_value, decay_dot] = tl::jvp(captured_decay, x, tl::cos(x));
  std::printf("a range-for over a captured Params jvp: %a %a\n", decay_value.item<double>(),
              decay_dot.item<double>());
  check_projection("a range-for over a captured Params", decay_dot, tl::grad(captured_decay)(x), tl::cos(x));

  // A Hessian-vector product, tl::jvp of tl::grad of f along t (JAX's jvp(grad(f))):
  // forward mode over the generated gradient along t. Its bits, the gradient beside
  // them (the gradient's bits), and the product against central differences of the
  // gradient along t; at three points each.
  const auto report_hvp = [&](const std::string& name, auto hvp, auto gradient, const tl::Tensor& origin,
                              const tl::Tensor& t) {
    const std::vector<tl::Tensor> points = points_near(origin);
    for (std::size_t k = 0; k < points.size(); ++k) {
      const std::string what = at_point(name, k);
      const auto [beside, hv] = hvp(points[k]);
      std::printf("%s:", what.c_str());
      for (double e : hv.template to_vector<double>()) std::printf(" %a", e);
      std::printf("\n");
      if (beside.template to_vector<double>() != gradient(points[k]).template to_vector<double>()) {
        std::printf("FAIL %s: the gradient beside the product is not the gradient's bits\n", what.c_str());
        ++failures;
      }
      const std::vector<double> up = gradient(points[k] + t * 1e-6).template to_vector<double>();
      const std::vector<double> down = gradient(points[k] - t * 1e-6).template to_vector<double>();
      const std::vector<double> got = hv.template to_vector<double>();
      for (std::size_t i = 0; i < got.size(); ++i) {
        const double fd = (up[i] - down[i]) / 2e-6;
        if (std::abs(fd - got[i]) > 1e-6 * (1 + std::abs(fd))) {
          std::printf("FAIL %s: element %zu: %.17g, central difference %.17g\n", what.c_str(), i, got[i], fd);
          ++failures;
        }
      }
    }
  };
  report_hvp(
      "jvp of grad", [&](const tl::Tensor& at) { return tl::jvp(tl::grad(curved), at, weights); },
      tl::grad(curved), w, weights);
  report_hvp(
      "jvp of grad through custom rules in loops",
      [&](const tl::Tensor& at) { return tl::jvp(tl::grad(branchy), at, tl::cos(w)); }, tl::grad(branchy), w,
      tl::cos(w));
  report_hvp(
      "jvp of grad through a loop",
      [&](const tl::Tensor& at) { return tl::jvp(tl::grad(rolled), at, weights); }, tl::grad(rolled), w,
      weights);

  // The gradient held in a variable of the type tl::grad returns, then given to tl::jvp.
  const auto held_gradient = tl::grad(curved);
  report_hvp(
      "jvp of a held grad", [&](const tl::Tensor& at) { return tl::jvp(held_gradient, at, tl::sin(w)); },
      held_gradient, w, tl::sin(w));

  // Edge pads of tensors used after them: the engine adds the border's shares to the
  // operand's cotangent one at a time, after the later uses' (tl::pad_backward's
  // so_far); a mode known only at run time, an axis of size 1 padded by one on each
  // side (the border is the element itself), and a pad of no widths, which passes
  // its operand on.
  auto padded_after = [](const tl::Tensor& v) {
    const tl::PadMode mode = v.rank() == 2 ? tl::PadMode::edge : tl::PadMode::constant;
    const tl::Tensor early = tl::sum(tl::exp(v));
    const tl::Tensor wide = tl::pad(v, {{1, 2}, {2, 1}}, mode);
    const tl::Tensor column = tl::sum(v * v, {1}, true);
    const tl::Tensor thin = tl::pad(column, {{0, 1}, {1, 1}}, tl::PadMode::edge);
    const tl::Tensor same = tl::pad(v, {{0, 0}, {0, 0}});
    return early + tl::sum(tl::sin(wide) * wide) + tl::sum(tl::cos(thin)) * tl::sum(column * column) +
           tl::sum(same * tl::tanh(v)) + tl::sum(v * v * v);
  };
  report_near("edge pads used after", tl::grad(padded_after), padded_after, w);
  report_hessian_near("hessian through edge pads used after", tl::hessian(padded_after),
                      tl::grad(padded_after), w);
  auto [padded_after_value, padded_after_dot] = tl::jvp(padded_after, w, weights);
  std::printf("edge pads used after jvp: %a %a\n", padded_after_value.item<double>(),
              padded_after_dot.item<double>());
  check_projection("edge pads used after", padded_after_dot, tl::grad(padded_after)(w), weights);

  // An f32 argument beside captured f64 tensors: each op promotes it (products, sums,
  // where, maximum, matmul, conv2d, conv_transpose2d, concat, stack, index_add,
  // scatter_add, tl::sum_to_shape_of; tl::broadcast_to_shape_of converts back), and
  // its gradient and Hessian come back in f32, each share converted back as the
  // engine converts it (tl::sum_to_shape_of, and tl::broadcast_to_shape_of in forward
  // mode). In f64 against central differences; in f32 their bits and dtypes, and
  // against the f64 ones.
  const tl::Tensor column = f64({0.4, -0.3}, {2});
  auto promoted = [&column](const tl::Tensor& v) {
    const tl::Tensor product = tl::sin(v) * column + v;
    const tl::Tensor selected_part = tl::where(v > 0.0, column, v) - tl::maximum(v, column);
    const tl::Tensor mm = tl::matmul(tl::tanh(v), tl::reshape(column, {2, 1}));
    const tl::Tensor rows_joined = tl::concat({v, tl::reshape(column, {1, 2})}, 0) * 1.5;
    // The library's own: summed to column's shape and dtype, and back to v's.
    const tl::Tensor to_column = tl::sum_to_shape_of(v * v, column);
    const tl::Tensor back_to_v = tl::broadcast_to_shape_of(tl::tanh(to_column), v);
    const tl::Tensor v_image = tl::reshape(v, {1, 1, 3, 2}),
                     column_kernel = tl::reshape(column, {1, 1, 1, 2});
    const tl::Tensor v_convolved =
        tl::conv2d(v_image, column_kernel) + tl::sum(tl::conv_transpose2d(v_image, column_kernel));
    // Updates of v's dtype added into a tensor of column's.
    const tl::Tensor grid = tl::stack({column, column * 0.5, column * 2.0});
    const tl::Tensor grid_added =
        tl::index_add(grid, tl::tensor(std::vector<std::int64_t>{2, 0}, {2}), tl::sin(tl::slice(v, 0, 0, 2)),
                      0) +
        tl::scatter_add(grid, tl::tensor(std::vector<std::int64_t>{1, 0, 0, 1, 1, 1}, {3, 2}), tl::cos(v), 1);
    return tl::sum(product * product) + tl::sum(selected_part * v) + tl::sum(mm * mm) +
           tl::sum(v / (column + 2.0)) + tl::sum(tl::cos(v) + column) + tl::sum(tl::sin(rows_joined)) +
           tl::sum(tl::stack({v, v * column}) * 0.5) + tl::sum(back_to_v * v) +
           tl::sum(tl::square(tl::sum_to_size(tl::sin(v), {1, 2}))) + tl::sum(tl::sin(v_convolved)) +
           tl::sum(tl::tanh(grid_added));
  };
  const auto promoted_gradient = tl::grad(promoted);
  const auto promoted_hessian = tl::hessian(promoted);
  report_near("promoted", promoted_gradient, promoted, w);
  report_hessian_near("hessian promoted", promoted_hessian, promoted_gradient, w);
  const tl::Tensor w32 = w.astype(tl::DType::f32);
  auto [promoted_value, promoted_dot] = tl::jvp(promoted, w32, weights.astype(tl::DType::f32));
  const std::vector<std::pair<std::string, tl::Tensor>> in_f32{{"gradient", promoted_gradient(w32)},
                                                               {"hessian", promoted_hessian(w32)},
                                                               {"jvp value", promoted_value},
                                                               {"jvp tangent", promoted_dot}};
  for (const auto& [what, t] : in_f32) {
    std::printf("promoted in f32, %s %s:", what.c_str(), std::string(tl::dtype_name(t.dtype())).c_str());
    for (double e : t.to_vector<double>()) std::printf(" %a", e);
    std::printf("\n");
  }
  // What each should be: the argument's dtype for its derivatives, the promoted one
  // (f64) for the value and its tangent; values within f32's rounding of the f64 ones.
  const std::vector<std::pair<tl::Tensor, tl::Tensor>> against{
      {in_f32[0].second, promoted_gradient(w)},
      {in_f32[1].second, promoted_hessian(w)},
      {in_f32[2].second, promoted(w)},
      {in_f32[3].second, tl::sum(promoted_gradient(w) * weights)}};
  for (std::size_t k = 0; k < against.size(); ++k) {
    const auto& [got, f64_result] = against[k];
    const tl::DType expected = k < 2 ? tl::DType::f32 : tl::DType::f64;
    if (got.dtype() != expected) {
      std::printf("FAIL promoted in f32, %s: %s, expected %s\n", in_f32[k].first.c_str(),
                  std::string(tl::dtype_name(got.dtype())).c_str(),
                  std::string(tl::dtype_name(expected)).c_str());
      ++failures;
    }
    const std::vector<double> near = got.to_vector<double>(), exact = f64_result.to_vector<double>();
    for (std::size_t i = 0; i < near.size(); ++i)
      if (std::abs(near[i] - exact[i]) > 1e-5 * (1 + std::abs(exact[i]))) {
        std::printf("FAIL promoted in f32, %s %zu: %.9g, in f64 %.17g\n", in_f32[k].first.c_str(), i, near[i],
                    exact[i]);
        ++failures;
      }
  }

  // The same transform of one function twice on a line: each call gets a generated
  // function of its own (hessian_cubic_<line> and hessian_cubic_<line>_2).
  const auto cubic = [](const tl::Tensor& v) { return tl::sum(tl::tanh(v) * v * v); };
  const auto at_both = [](const tl::Tensor& v) {
    const tl::Tensor doubled = v * 2.0;
    return tl::sum(tl::tanh(v) * v * v) + tl::sum(tl::tanh(doubled) * doubled * doubled) / 4.0;
  };
  const auto two_grads = [&cubic](const tl::Tensor& v) {
    return tl::grad(cubic)(v) + tl::grad(cubic)(v * 2.0) / 2.0;
  };
  const auto two_hessians = [&cubic](const tl::Tensor& v) {
    return tl::hessian(cubic)(v) + tl::hessian(cubic)(v * 2.0);
  };
  report_near("the same gradient twice on a line", two_grads, at_both, w);
  report_hessian_near("the same hessian twice on a line", two_hessians, tl::grad(at_both), w);

  // Lists the function holds, joined whole: tl::stack and tl::concat of a braced list
  // held in a variable, and tl::concat of tl::split's parts (w is [3, 2]).
  const auto joined_whole = [](const tl::Tensor& v) {
    const std::vector<tl::Tensor> parts{tl::sin(v), v * v + v};
    const tl::Tensor whole = tl::concat(tl::split(v, 2, 1), 1);
    return tl::sum(tl::stack(parts, 0) * 2.0) + tl::sum(tl::tanh(tl::concat(parts, 1))) +
           tl::sum(whole * whole * v);
  };
  report_near("a held list joined whole", tl::grad(joined_whole), joined_whole, w);
  report_hessian_near("hessian of a held list joined whole", tl::hessian(joined_whole),
                      tl::grad(joined_whole), w);
  auto [joined_whole_value, joined_whole_dot] = tl::jvp(joined_whole, w, weights);
  std::printf("a held list joined whole jvp: %a %a\n", joined_whole_value.item<double>(),
              joined_whole_dot.item<double>());
  check_projection("a held list joined whole", joined_whole_dot, tl::grad(joined_whole)(w), weights);

  // A loop whose first iterations pass the carried value on (`continue`) while its
  // initial value is read after the loop too: tracing sees one value there, so its
  // shares sum in one order (the reverse loop's variables refer to the initial
  // value's while the carried value is that tensor). With skip 4 no iteration
  // changes it.
  for (const int skip : {0, 2, 4}) {
    auto skipped = [skip](const tl::Tensor& m) {
      const tl::Tensor start = tl::sin(m) * 0.5;
      tl::Tensor h = start;
      for (int i = 0; i < 4; ++i) {
        if (i < skip) continue;
        h = tl::tanh(h * m) + h;
      }
      return tl::sum(h * h + start * m);
    };
    const std::string name = "a loop passing on its initial value, skip " + std::to_string(skip);
    report_near(name, tl::grad(skipped), skipped, w);
    report_hessian_near(name + ", hessian", tl::hessian(skipped), tl::grad(skipped), w);
    // The same where the iteration reads the value it passes on, and another value
    // from outside may take its place.
    auto replaced = [skip](const tl::Tensor& m) {
      const tl::Tensor start = tl::sin(m) * 0.5, other = tl::cos(m);
      tl::Tensor h = start, total = m * 0.25;
      for (int i = 0; i < 5; ++i) {
        if (i == skip + 1) h = other;
        if (i >= skip) h = tl::tanh(h * m);
        total = total + h * h;
      }
      return tl::sum(total * h + start * m + other);
    };
    report_near(name + ", replaced", tl::grad(replaced), replaced, w);
    // Two carried values that swap, their initial values read after the loop too: one
    // carried value may be the other's initial value itself.
    auto swapped = [skip](const tl::Tensor& m) {
      const tl::Tensor s = tl::sin(m), c = tl::cos(m);
      tl::Tensor p = s, q = c;
      for (int i = 0; i < skip + 1; ++i) {
        const tl::Tensor before = p;
        p = q;
        q = before * m + q;
      }
      return tl::sum(p * q + s * c * m);
    };
    report_near(name + ", swapped", tl::grad(swapped), swapped, w);
    report_hessian_near(name + ", swapped, hessian", tl::hessian(swapped), tl::grad(swapped), w);
    // Two carried values that end each iteration as one value: tracing sees that one
    // value at the next iteration's start, twice.
    auto as_one = [skip](const tl::Tensor& m) {
      tl::Tensor p = m, q = tl::sin(m);
      for (int i = 0; i < skip; ++i) {
        const tl::Tensor both = tl::tanh(p * q) + m;
        p = both;
        q = both;
      }
      return tl::sum(p * m + q);
    };
    report_near(name + ", as one", tl::grad(as_one), as_one, w);
    report_hessian_near(name + ", as one, hessian", tl::hessian(as_one), tl::grad(as_one), w);
  }

  // A loop that may carry on an element of the differentiated list, read after it too.
  for (const int n : {1, 3, 4}) {
    const auto element_on = [n](const std::vector<tl::Tensor>& ps) {
      tl::Tensor h = ps[0] * 0.5;
      for (int i = 0; i < n; ++i) {
        h = tl::tanh(h * ps[0]) * 1.7 + h * 0.3 + ps[0] * 0.5;
        if (i == 1) h = ps[0];
      }
      return tl::sum(h * 1.3) + tl::sum(ps[0] * ps[0] * 0.7);
    };
    report_list("a loop passing on an element, " + std::to_string(n), tl::grad(element_on)(layers), element_on,
                layers);
  }

  // An element read at an index known at run time only, passed on by an if: its
  // shares are added to the element's, which another read may have given some.
  for (const std::size_t at : {std::size_t(0), std::size_t(1)})
    for (const bool take : {false, true}) {
      const auto run_time_pick = [at, take](const std::vector<tl::Tensor>& ps) {
        tl::Tensor h = ps[0] * 2.0;
        if (take) h = ps[at];
        return tl::sum(h * ps[0] + tl::sin(ps[1]));
      };
      report_list("an element at a run-time index passed on, " + std::to_string(at) + (take ? ", taken" : ""),
                  tl::grad(run_time_pick)(layers), run_time_pick, layers);
    }

  // The Hessian through a tl::cond whose taken branch gives a value read before it no
  // share: the reverse's if is the traced `if` op, whose tangents are zeros where a
  // branch gives none (signed zeros: random ranged seed 413).
  const auto cond_zero = [](const tl::Tensor& m) {
    const tl::Tensor r = tl::tanh(tl::sin(m));
    const tl::Tensor t = tl::cond(
        tl::sum(r) > 0.1, [&] { return tl::cos(tl::reshape(tl::transpose(m * 0.5), {3, 2})) * 0.5; },
        [&] { return tl::cos(r); });
    return tl::sum(t * m) * 0.5;
  };
  report_hessian_near("hessian through a tl::cond giving a value no share", tl::hessian(cond_zero),
                      tl::grad(cond_zero), w);

  // A scalar a loop body changes after a return inside it, read by nothing after: the
  // generated code's copy of it is not kept (it compiles under -Werror, random windowed
  // seed 508).
  for (const int stop : {0, 1, 2}) {
    const auto changed_after = [stop](const tl::Tensor& m) {
      tl::Tensor r = tl::sin(m);
      for (int i = 0; i < 2; ++i) {
        double s = 0.5;
        if (i == stop) return tl::sum(r * m);
        s += 1.5;
        r = tl::sin(r) * s;
      }
      return tl::sum(r * r);
    };
    report_near("a scalar changed after a return in a loop, stop " + std::to_string(stop), tl::grad(changed_after),
                changed_after, w);
  }

  // sum, max and min with axes and keepdims known at run time only: the tool records
  // the reduction ops with those arguments as written and runs the ops' own rules.
  const std::vector<std::int64_t> first_axis{0};
  const bool keep_axes = w.rank() > 1;
  const auto reduced_at_run_time = [&](const tl::Tensor& m) {
    return tl::sum(tl::sum(m * m, first_axis, keep_axes) * tl::max(m, {m.rank() - 1}, keep_axes) +
                   tl::min(tl::exp(m), first_axis) * 0.5);
  };
  report_near("reductions over axes known at run time", tl::grad(reduced_at_run_time), reduced_at_run_time,
              w);
  auto [written_axes_value, written_axes_dot] = tl::jvp(reduced_at_run_time, w, weights);
  std::printf("reductions over axes known at run time jvp: %a %a\n", written_axes_value.item<double>(),
              written_axes_dot.item<double>());
  check_projection("reductions over axes known at run time", written_axes_dot,
                   tl::grad(reduced_at_run_time)(w), weights);

  // hypot, added to the library after the tool: its rules are read from the op registry.
  const auto hypotenuse = [&](const tl::Tensor& m) {
    return tl::sum(tl::hypot(m, b + 1.0) * m + tl::hypot(2.0, m * m) + tl::hypot(m * 3.0, m));
  };
  report_near("hypot", tl::grad(hypotenuse), hypotenuse, w);
  auto [hypot_value, hypot_dot] = tl::jvp(hypotenuse, w, weights);
  std::printf("hypot jvp: %a %a\n", hypot_value.item<double>(), hypot_dot.item<double>());
  check_projection("hypot", hypot_dot, tl::grad(hypotenuse)(w), weights);

  // logaddexp, added in one commit that changed nothing in tools/: its rules too are read
  // from the op registry.
  const auto smooth_max = [&](const tl::Tensor& m) {
    return tl::sum(tl::logaddexp(m * 2.0, b + 1.0) * m + tl::logaddexp(0.5, m * m));
  };
  report_near("logaddexp", tl::grad(smooth_max), smooth_max, w);
  auto [logaddexp_value, logaddexp_dot] = tl::jvp(smooth_max, w, weights);
  std::printf("logaddexp jvp: %a %a\n", logaddexp_value.item<double>(), logaddexp_dot.item<double>());
  check_projection("logaddexp", logaddexp_dot, tl::grad(smooth_max)(w), weights);

  // A result that depends on nothing differentiated: zeros, as tracing gives them.
  const auto unmoved = [](const tl::Tensor& m) { return tl::sum(tl::zeros_like(m) + 2.0); };
  report("a result nothing differentiated moves", tl::grad(unmoved)(w), unmoved, w);
  const auto unmoved_list = [](const std::vector<tl::Tensor>& ps) { return tl::sum(tl::ones_like(ps[1])); };
  report_list("a result no element moves", tl::grad(unmoved_list)(layers), unmoved_list, layers);

  // take_along_axis's transpose read back as its op (a Hessian is forward mode over the
  // generated gradient, which calls tl::derivatives::take_along_axis_backward), with x
  // broadcast against the indices off the axis.
  const tl::Tensor columns = tl::tensor(std::vector<std::int64_t>{1, 0, 1, 1, 0, 0}, {3, 2});
  const auto picked_twice = [&](const tl::Tensor& m) {
    const tl::Tensor squares = tl::sum(m * m, {0}, true);
    return tl::sum(tl::exp(tl::take_along_axis(squares, columns, 1)) * tl::take_along_axis(m * m * m, columns, 1));
  };
  report_hessian_near("hessian through take_along_axis", tl::hessian(picked_twice), tl::grad(picked_twice), w);

  // Functions of several ops that carry no derivative, though they read the argument
  // (their declarations say so: TLALOC_NO_DERIVATIVE); written over its values.
  const auto unmoving = [](const tl::Tensor& m) {
    const tl::Tensor mask = tl::one_hot(tl::argmax(m, 1), 2, m.dtype());
    const tl::Tensor flat = tl::full_like(m, 0.5) * tl::argmin(m).astype(m.dtype());
    return tl::sum(mask * m * m + flat * m) + tl::sum(tl::where(tl::any(m > 0.35, {1}, true), m, -m));
  };
  report("functions without a derivative", tl::grad(unmoving)(w), unmoving, w);

  // The special functions' rules (tlaloc/special.hpp). The operands they have no
  // derivative in (polygamma's order, zeta's x, the incomplete gamma functions' a,
  // betainc's a and b)
  // are constants here.
  const tl::Tensor order = tl::full({3, 2}, 1.0, tl::DType::f64),
                   gamma_a = tl::full({3, 2}, 2.5, tl::DType::f64);
  auto special = [&](const tl::Tensor& m) {
    const tl::Tensor p = m * m + 0.5;
    const tl::Tensor gammas =
        tl::lgamma(p) + tl::digamma(p + 1.0) + tl::polygamma(order, p) + tl::zeta(gamma_a, p);
    const tl::Tensor rest = tl::igamma(gamma_a, p) - tl::igammac(order, p) + tl::erfc(m) +
                            tl::erf_inv(tl::tanh(m) * 0.5) + tl::bessel_i0e(m) * tl::bessel_i1e(m) +
                            tl::betainc(gamma_a, order, tl::sigmoid(m));
    return tl::sum(gammas * rest);
  };
  report_near("special functions", tl::grad(special), special, w);
  auto [special_value, special_dot] = tl::jvp(special, w, weights);
  std::printf("special functions jvp: %a %a\n", special_value.item<double>(), special_dot.item<double>());
  check_projection("special functions", special_dot, tl::grad(special)(w), weights);

  auto [value, g] = tl::value_and_grad(mlp)(w);
  std::printf("value: %a\n", value.item<double>());
  report("value_and_grad", g, mlp, w);

  std::printf("%d failures\n", failures);
  return failures == 0 ? 0 : 1;
}
