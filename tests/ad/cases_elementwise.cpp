// Rows for the elementwise ops: unary functions on their domains, binary ops with
// broadcasting, select, convert.
#include "ad/gradcheck.hpp"

namespace gradcheck {
namespace {

using Unary = Tensor (*)(const Tensor&);

// The PyTorch spelling is torch.<name>(a) unless given.
Case unary(std::string name, Unary f, Tensor x, bool second = true, std::string torch = "") {
  Case c{"unary/" + name, {name}, {std::move(x)}, [f](std::span<const Tensor> a) { return f(a[0]); }, second};
  c.torch = torch.empty() ? "torch." + name + "(a)" : torch;
  return c;
}

Case binary(std::string name, Tensor (*f)(const Tensor&, const Tensor&), Tensor a, Tensor b, bool second = true,
            std::string torch = "") {
  Case c{"binary/" + name, {name}, {std::move(a), std::move(b)},
         [f](std::span<const Tensor> x) { return f(x[0], x[1]); }, second};
  c.torch = torch.empty() ? "torch." + name + "(a, b)" : torch;
  return c;
}

const tl::Shape s23{2, 3};

const bool added = add({
    unary("neg", tl::neg, uniform(s23, -2, 2, 1)),
    unary("abs", tl::abs, away_from_zero(s23, 2)),
    unary("exp", tl::exp, uniform(s23, -2, 2, 3)),
    unary("expm1", tl::expm1, uniform(s23, -2, 2, 4)),
    unary("log", tl::log, uniform(s23, 0.2, 3, 5)),
    unary("log1p", tl::log1p, uniform(s23, -0.5, 3, 6)),
    unary("sqrt", tl::sqrt, uniform(s23, 0.2, 3, 7)),
    unary("rsqrt", tl::rsqrt, uniform(s23, 0.2, 3, 8)),
    unary("square", tl::square, uniform(s23, -2, 2, 9)),
    unary("reciprocal", tl::reciprocal, away_from_zero(s23, 10)),
    unary("sin", tl::sin, uniform(s23, -3, 3, 11)),
    unary("cos", tl::cos, uniform(s23, -3, 3, 12)),
    unary("tan", tl::tan, uniform(s23, -1.2, 1.2, 13)),
    unary("tanh", tl::tanh, uniform(s23, -2, 2, 14)),
    unary("sinh", tl::sinh, uniform(s23, -2, 2, 15)),
    unary("cosh", tl::cosh, uniform(s23, -2, 2, 16)),
    unary("asin", tl::asin, uniform(s23, -0.8, 0.8, 17)),
    unary("acos", tl::acos, uniform(s23, -0.8, 0.8, 18)),
    unary("atan", tl::atan, uniform(s23, -3, 3, 19)),
    unary("asinh", tl::asinh, uniform(s23, -3, 3, 20)),
    unary("acosh", tl::acosh, uniform(s23, 1.2, 3, 21)),
    unary("atanh", tl::atanh, uniform(s23, -0.8, 0.8, 22)),
    unary("sigmoid", tl::sigmoid, uniform(s23, -3, 3, 23)),
    unary("relu", tl::relu, away_from_zero(s23, 24), false, "torch.relu(a)"),
    unary("silu", tl::silu, uniform(s23, -3, 3, 25), true, "F.silu(a)"),
    unary("softplus", tl::softplus, uniform(s23, -3, 3, 26), true, "F.softplus(a)"),
    unary("erf", tl::erf, uniform(s23, -2, 2, 27)),
    with_torch({"unary/gelu", {"gelu"}, {uniform(s23, -3, 3, 28)}, [](std::span<const Tensor> a) { return tl::gelu(a[0]); }},
               "F.gelu(a)"),
    with_torch({"unary/gelu_tanh", {"gelu_tanh"}, {uniform(s23, -3, 3, 29)},
                [](std::span<const Tensor> a) { return tl::gelu(a[0], true); }},
               "F.gelu(a, approximate='tanh')"),
    {"unary/convert", {"convert"}, {uniform(s23, -2, 2, 30)},
     [](std::span<const Tensor> a) { return tl::square(a[0].astype(a[0].dtype() == tl::DType::f64 ? tl::DType::f32 : tl::DType::f64)).astype(a[0].dtype()); },
     true, true, 1e-2, 1e-3, "torch.square(a.float()).double()"},  // through f32: a large step, exact for a square
    binary("add", tl::add, uniform(s23, -2, 2, 40), uniform({3}, -2, 2, 41)),
    binary("sub", tl::sub, uniform({2, 1}, -2, 2, 42), uniform(s23, -2, 2, 43)),
    binary("mul", tl::mul, uniform(s23, -2, 2, 44), uniform({1, 3}, -2, 2, 45)),
    binary("div", tl::div, uniform(s23, -2, 2, 46), away_from_zero({3}, 47)),
    binary("pow", tl::pow, uniform(s23, 0.3, 2, 48), uniform(s23, -2, 2, 49)),
    binary("maximum", tl::maximum, uniform(s23, -2, 2, 50), uniform(s23, -2, 2, 51), false),
    binary("minimum", tl::minimum, uniform(s23, -2, 2, 52), uniform(s23, -2, 2, 53), false),
    binary("atan2", tl::atan2, away_from_zero(s23, 54), away_from_zero(s23, 55)),
    binary("hypot", tl::hypot, away_from_zero(s23, 58), uniform({3}, -2, 2, 59)),
    binary("logaddexp", tl::logaddexp, uniform(s23, -3, 3, 1038), uniform({3}, -3, 3, 1039)),
    binary("remainder", tl::remainder, uniform(s23, 0.1, 0.9, 56) + tl::reshape(tl::arange(0, 6, 1, tl::DType::f64), s23),
           uniform(s23, 1.1, 1.3, 57), false),
    with_torch({"select/where", {"select"}, {uniform(s23, -2, 2, 60), uniform({3}, -2, 2, 61)},
                [](std::span<const Tensor> a) { return tl::where(a[0] > 0, a[0] * a[0], a[1]); }},
               "torch.where(a > 0, a * a, b)"),
});

}  // namespace
}  // namespace gradcheck
