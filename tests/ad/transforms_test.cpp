// The public transforms: forms, caching, nesting, captures and bad input.
#include <gtest/gtest.h>

#include <tlaloc/nn.hpp>
#include <tlaloc/tlaloc.hpp>

#include "ad/engine.hpp"
#include "ir/op.hpp"
#include "ir/passes.hpp"
#include "support/expect_error.hpp"

#define EXPECT_ERROR(expr, E, piece) tltest::expect_error_with<E>([&] { (void)(expr); }, {piece})

namespace {

namespace tl = tlaloc;
using tl::Tensor;

Tensor vec(std::vector<double> v) { return tl::tensor(v); }
std::vector<double> values(const Tensor& t) { return t.to_vector<double>(); }

TEST(Grad, OfASumOfSquaresIsTwiceTheInput) {
  const auto f = [](const Tensor& x) { return tl::sum(x * x); };
  EXPECT_EQ(values(tl::grad(f)(vec({1, -2, 3}))), (std::vector<double>{2, -4, 6}));
}

TEST(Grad, ValueAndGradComeFromOneCall) {
  const auto f = [](const Tensor& x) { return tl::sum(tl::sin(x)); };
  const Tensor x = vec({0.5, 1.0});
  auto [v, g] = tl::value_and_grad(f)(x);
  EXPECT_DOUBLE_EQ(v.item<double>(), std::sin(0.5) + std::sin(1.0));
  EXPECT_EQ(values(g), values(tl::cos(x)));
}

TEST(Grad, ArgnumsGivesOneGradientPerListedArgument) {
  const auto f = [](const Tensor& a, const Tensor& b, double k) { return tl::sum(a * b) * k; };
  const std::vector<Tensor> g = tl::grad(f, {0, 1})(vec({1, 2}), vec({3, 4}), 2.0);
  ASSERT_EQ(g.size(), 2u);
  EXPECT_EQ(values(g[0]), (std::vector<double>{6, 8}));
  EXPECT_EQ(values(g[1]), (std::vector<double>{2, 4}));
}

TEST(Grad, AListOfParametersGetsAListOfGradients) {
  const auto loss = [](const std::vector<Tensor>& p, const Tensor& x) { return tl::sum(p[0] * x + p[1]); };
  const std::vector<Tensor> params{vec({1, 1}), vec({0, 0})};
  const std::vector<Tensor> g = tl::grad(loss)(params, vec({5, 7}));
  EXPECT_EQ(values(g[0]), (std::vector<double>{5, 7}));
  EXPECT_EQ(values(g[1]), (std::vector<double>{1, 1}));
}

TEST(Grad, ParamsGetParamsOfGradientsWithTheSameNames) {
  const tl::nn::Params p{{"layer.weight", vec({1, 2})}, {"layer.bias", vec({3})}};
  const auto loss = [](const tl::nn::Params& q, const Tensor& x) {
    return tl::sum(q.at("layer.weight") * x) + tl::sum(q.at("layer.bias") * q.at("layer.bias"));
  };
  const tl::nn::Params g = tl::grad(loss)(p, vec({5, 7}));
  EXPECT_EQ(g.names(), p.names());
  EXPECT_EQ(values(g.at("layer.weight")), (std::vector<double>{5, 7}));
  EXPECT_EQ(values(g.at("layer.bias")), (std::vector<double>{6}));
}

TEST(Grad, CachesPerSignatureAndRetracesOnANewOne) {
  const auto g = tl::grad([](const Tensor& x, int power) { return tl::sum(tl::pow(x, double(power))); });
  g(vec({1, 2}), 2);
  g(vec({3, 4}), 2);
  EXPECT_EQ(g.traces(), 1u);
  g(vec({1, 2, 3}), 2);  // new shape
  EXPECT_EQ(g.traces(), 2u);
  EXPECT_EQ(values(g(vec({2}), 3)), (std::vector<double>{12}));  // new static argument
  EXPECT_EQ(g.traces(), 3u);
}

TEST(Nesting, GradOfGrad) {
  const auto f = [](const Tensor& x) { return tl::sum(x * x * x); };
  const auto df = [&](const Tensor& x) { return tl::sum(tl::grad(f)(x)); };
  EXPECT_EQ(values(tl::grad(df)(vec({1, 2}))), (std::vector<double>{6, 12}));
  const auto ddf = [&](const Tensor& x) { return tl::sum(tl::grad(df)(x)); };
  EXPECT_EQ(values(tl::grad(ddf)(vec({1, 2}))), (std::vector<double>{6, 6}));
}

TEST(Nesting, InnerFunctionCapturesTheOuterArgument) {
  // d/dx [ d/dy (x y^2) at y = x ] = d/dx [2 x^2] = 4x.
  const auto outer = [](const Tensor& x) {
    return tl::sum(tl::grad([&x](const Tensor& y) { return tl::sum(x * y * y); })(x));
  };
  EXPECT_EQ(values(tl::grad(outer)(vec({1.5, -2}))), (std::vector<double>{6, -8}));
}

TEST(Nesting, JvpOfGradIsAHessianVectorProduct) {
  const auto f = [](const Tensor& x) { return tl::sum(tl::exp(x) * x); };
  const Tensor x = vec({0.1, 0.2}), v = vec({1, -1});
  auto [g, hv] = tl::jvp([&](const Tensor& y) { return tl::grad(f)(y); }, x, v);
  // f'' = e^x (x + 2), diagonal.
  const auto e = values(tl::exp(x));
  EXPECT_NEAR(values(hv)[0], e[0] * 2.1, 1e-12);
  EXPECT_NEAR(values(hv)[1], -e[1] * 2.2, 1e-12);
}

TEST(Jvp, SeveralArgumentsAsAList) {
  const auto f = [](const std::vector<Tensor>& a) { return a[0] * a[1]; };
  auto [y, t] = tl::jvp(f, {vec({1, 2}), vec({3, 4})}, {vec({1, 0}), vec({0, 1})});
  EXPECT_EQ(values(y), (std::vector<double>{3, 8}));
  EXPECT_EQ(values(t), (std::vector<double>{3, 2}));
}

TEST(Gradients, ComeOutSmall) {
  // d/dx sum(x * x) is 2x: after simplification, one op and nothing else (no zeros,
  // no broadcast of the seed left over).
  std::vector<tl::ir::TensorType> types{{tl::DType::f64, {3}}};
  const tl::ir::Function f = tl::ir::trace("f", types, [](std::span<const Tensor> a) {
    return std::vector<Tensor>{tl::sum(a[0] * a[0])};
  });
  tl::ir::Function g = tlaloc::ad::vjp(f, {true}, true);
  g.body.results.erase(g.body.results.begin());  // the gradient only, as tl::grad
  g = tl::ir::optimize(g);
  ASSERT_EQ(g.body.ops.size(), 1u) << tl::ir::to_string(g);  // x + x: the seed's ones multiply away
  EXPECT_EQ(g.body.ops[0].name(), "add");
}

TEST(Jacobian, ForwardAndReverseAgree) {
  const auto g = [](const Tensor& x) { return tl::tanh(tl::matmul(tl::reshape(x, {2, 2}), tl::reshape(x, {2, 2}))); };
  const Tensor x = vec({0.1, 0.2, -0.3, 0.4});
  const Tensor jf = tl::jacfwd(g)(x), jr = tl::jacrev(g)(x);
  EXPECT_EQ(jf.shape(), (tl::Shape{2, 2, 4}));
  EXPECT_TRUE(tl::allclose(jf, jr, 1e-12, 1e-14));
}

TEST(Hessian, OfAQuadraticFormIsTheSymmetrizedMatrix) {
  const Tensor a = tl::tensor(std::vector<double>{1, 2, 3, 4}, {2, 2});
  const auto f = [&](const Tensor& x) { return tl::sum(x * tl::matmul(a, x)); };
  const Tensor h = tl::hessian(f)(vec({0.3, -0.7}));
  EXPECT_EQ(values(h), (std::vector<double>{2, 5, 5, 8}));
}

TEST(StopGradient, BlocksTheDerivative) {
  const auto f = [](const Tensor& x) { return tl::sum(x * tl::stop_gradient(x)); };
  EXPECT_EQ(values(tl::grad(f)(vec({2, 3}))), (std::vector<double>{2, 3}));
}

TEST(Jit, RunsTheTracedProgramAndCountsTraces) {
  const auto f = tl::jit([](const Tensor& x, const Tensor& y) { return std::pair{x + y, tl::sum(x * y)}; });
  auto [s, d] = f(vec({1, 2}), vec({3, 4}));
  EXPECT_EQ(values(s), (std::vector<double>{4, 6}));
  EXPECT_EQ(d.item<double>(), 11);
  f(vec({5, 6}), vec({7, 8}));
  EXPECT_EQ(f.traces(), 1u);
  f(vec({5, 6}).astype(tl::DType::f32), vec({7, 8}).astype(tl::DType::f32));
  EXPECT_EQ(f.traces(), 2u);
}

TEST(Jit, ReturnsParams) {
  const tl::nn::Params p{{"w", vec({1, 2})}, {"b", vec({3})}};
  const auto step = tl::jit([](const tl::nn::Params& q, double lr) {
    const tl::nn::Params g = tl::grad([](const tl::nn::Params& r) { return tl::sum(r.at("w") * r.at("w")) + tl::sum(r.at("b")); })(q);
    return std::pair{q.with_tensors({q.at("w") - lr * g.at("w"), q.at("b") - lr * g.at("b")}), tl::sum(g.at("w"))};
  });
  auto [next, total] = step(p, 0.5);
  EXPECT_EQ(next.names(), p.names());
  EXPECT_EQ(values(next.at("w")), (std::vector<double>{0, 0}));
  EXPECT_EQ(values(next.at("b")), (std::vector<double>{2.5}));
  EXPECT_EQ(total.item<double>(), 6);
}

TEST(Jit, OfGradInsideGrad) {
  const auto g = tl::jit(tl::grad([](const Tensor& x) { return tl::sum(x * x * x); }));
  const auto f = [&](const Tensor& x) { return tl::sum(g(x)); };
  EXPECT_EQ(values(tl::grad(f)(vec({1, 2}))), (std::vector<double>{6, 12}));
}

TEST(Vjp, PullbackGivesOneCotangentPerArgument) {
  auto [y, pb] = tl::vjp([](const Tensor& a, const Tensor& b) { return a * b; }, vec({1, 2}), vec({3, 4}));
  EXPECT_EQ(values(y), (std::vector<double>{3, 8}));
  const std::vector<Tensor> g = pb(vec({1, 10}));
  EXPECT_EQ(values(g[0]), (std::vector<double>{3, 40}));
  EXPECT_EQ(values(g[1]), (std::vector<double>{1, 20}));
}

TEST(BadInput, GradOfANonScalarIsRefused) {
  const auto f = [](const Tensor& x) { return x * 2; };
  EXPECT_ERROR(tl::grad(f)(vec({1, 2})), tl::ValueError,
               "tl::grad: the function must return one floating-point scalar, got f64[2]");
}

TEST(BadInput, DifferentiatingAnIntegerTensorIsRefused) {
  const auto f = [](const Tensor& x) { return tl::sum(x * 1.5); };
  EXPECT_ERROR(tl::grad(f)(tl::tensor(std::vector<std::int32_t>{1, 2})), tl::DTypeError,
               "tensor argument 0 is i32[2]; only floating-point tensors can be differentiated");
}

TEST(BadInput, ArgnumsOutOfRangeAndNonTensorArguments) {
  const auto f = [](const Tensor& x, double k) { return tl::sum(x) * k; };
  EXPECT_ERROR(tl::grad(f, {2})(vec({1}), 1.0), tl::ValueError, "argnums names argument 2 but the call has 2");
  EXPECT_ERROR(tl::grad(f, {1})(vec({1}), 1.0), tl::ValueError, "argument 1 is not a tensor");
}

TEST(BadInput, WrongTangentAndCotangentTypes) {
  const auto f = [](const Tensor& x) { return x * 2; };
  EXPECT_ERROR(tl::jvp(f, vec({1, 2}), vec({1})), tl::ValueError, "tangent 0 must have the primal's type f64[2]");
  const tl::Pullback pb = tl::vjp(f, vec({1, 2})).second;
  EXPECT_ERROR(pb(vec({1, 2, 3})), tl::ValueError, "cotangent 0 must have the result's type f64[2]");
}

TEST(BadInput, WrongArgumentCounts) {
  const auto f = [](const std::vector<Tensor>& a) { return a[0] * a[1]; };
  EXPECT_ERROR(tl::jvp(f, {vec({1}), vec({2})}, {vec({1})}), tl::ValueError, "jvp: 2 primals but 1 tangents");
  const auto bwd_count = tl::custom_vjp(
      [](const Tensor& x, const Tensor& y) { return x * y; },
      [](const Tensor& x, const Tensor& y) { return std::pair{x * y, std::vector<Tensor>{x, y}}; },
      [](const std::vector<Tensor>& r, const Tensor& ct) { return std::vector<Tensor>{ct * r[1]}; }, "one_short");
  EXPECT_ERROR(tl::grad([&](const Tensor& x) { return tl::sum(bwd_count(x, x)); })(vec({1})),
               tl::NotDifferentiableError, "the backward rule of 'one_short' returned 1 cotangents for 2 arguments");
}

TEST(BadInput, AnEscapedTracerIsRefusedByName) {
  Tensor leaked;
  const auto f = [&](const Tensor& x) {
    leaked = x * 2;
    return tl::sum(x);
  };
  tl::grad(f)(vec({1}));
  EXPECT_ERROR(leaked + 1, tl::ValueError, "from a trace that has ended");
}

// An op declared here without derivative rules.
const tl::detail::OpDef& no_rule_op =
    tl::detail::def_op("test.no_rule")
        .inputs(1)
        .shape_rule([](std::span<const tl::detail::TensorType> in, const tl::detail::Attrs&) {
          return std::vector<tl::detail::TensorType>{in[0]};
        })
        .kernel([](std::span<const Tensor> in, const tl::detail::Attrs&, std::span<const tl::detail::TensorType>) {
          return std::vector<Tensor>{in[0]};
        });

TEST(BadInput, AnOpWithoutARuleIsRefusedByName) {
  const auto f = [](const Tensor& x) { return tl::sum(tl::detail::call1(no_rule_op, {x * 2})); };
  EXPECT_ERROR(tl::grad(f)(vec({1, 2})), tl::NotDifferentiableError,
               "vjp: op 'test.no_rule' (operands f64[2]) in @grad: it has no VJP rule");
  EXPECT_ERROR(tl::jvp(f, vec({1, 2}), vec({1, 1})), tl::NotDifferentiableError,
               "jvp: op 'test.no_rule' (operands f64[2]) in @jvp: it has no JVP rule");
}

}  // namespace
