// The IR built by tracing, its verifier, and the interpreter against eager calls.
#include <gtest/gtest.h>

#include "interp/interpreter.hpp"
#include "ir/builder.hpp"
#include "support/expect_error.hpp"
#include "tlaloc/tlaloc.hpp"

namespace tl = tlaloc;
using tl::ir::TensorType;

namespace {

tl::Tensor mlp(const tl::Tensor& x, const tl::Tensor& w1, const tl::Tensor& w2) {
  return tl::softmax(tl::matmul(tl::relu(tl::matmul(x, w1) + 1.0f), w2), -1);
}

TEST(Interpreter, TracedMlpEqualsEagerBitForBit) {
  const auto key = tl::random::key(3);
  const auto ks = tl::random::split(key, 3);
  const tl::Tensor x = tl::random::normal(ks[0], {4, 8});
  const tl::Tensor w1 = tl::random::normal(ks[1], {8, 16});
  const tl::Tensor w2 = tl::random::normal(ks[2], {16, 3});
  const std::vector<TensorType> params{
      {tl::DType::f32, {4, 8}}, {tl::DType::f32, {8, 16}}, {tl::DType::f32, {16, 3}}};
  tl::ir::Function f = tl::ir::trace("mlp", params, [](std::span<const tl::Tensor> a) {
    return std::vector<tl::Tensor>{mlp(a[0], a[1], a[2])};
  });
  tl::ir::verify(f);
  const tl::interp::Program prog(f);
  const std::vector<tl::Tensor> got = prog.run({x, w1, w2});
  const tl::Tensor want = mlp(x, w1, w2);
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].to_vector<float>(), want.to_vector<float>());
}

TEST(Interpreter, HostTensorsBecomeConstantsOnce) {
  const tl::Tensor c = tl::tensor({1.f, 2.f}, {2});
  tl::ir::Function f =
      tl::ir::trace("f", std::vector<TensorType>{{tl::DType::f32, {2}}},
                    [&](std::span<const tl::Tensor> a) { return std::vector<tl::Tensor>{a[0] * c + c}; });
  int constants = 0;
  for (const auto& op : f.body.ops) constants += op.name() == "constant";
  EXPECT_EQ(constants, 1);
  const auto out = tl::interp::run(f, std::vector<tl::Tensor>{tl::tensor({3.f, 4.f}, {2})});
  EXPECT_EQ(out[0].to_vector<float>(), (std::vector<float>{4.f, 10.f}));
}

TEST(Interpreter, RefusesArgumentsOfTheWrongType) {
  tl::ir::Function f =
      tl::ir::trace("f", std::vector<TensorType>{{tl::DType::f32, {2}}},
                    [](std::span<const tl::Tensor> a) { return std::vector<tl::Tensor>{a[0]}; });
  const tl::interp::Program prog(f);
  tltest::expect_error_with<tl::ShapeError>([&] { prog.run({tl::zeros({3})}); },
                                            {"@f", "argument 0", "f32[3]", "f32[2]"});
  tltest::expect_error_with<tl::ValueError>([&] { prog.run({}); }, {"@f", "takes 1 arguments, got 0"});
}

TEST(Verifier, NamesUseBeforeDefinition) {
  tl::ir::Function f = tl::ir::trace(
      "g", std::vector<TensorType>{{tl::DType::f32, {2}}},
      [](std::span<const tl::Tensor> a) { return std::vector<tl::Tensor>{tl::exp(tl::neg(a[0]))}; });
  std::swap(f.body.ops[0], f.body.ops[1]);
  tltest::expect_error_with<tl::Error>([&] { tl::ir::verify(f); },
                                       {"@g", "op 'exp'", "used where it is not defined"});
}

TEST(Verifier, NamesAResultTypeThatBreaksTheRule) {
  tl::ir::Function f;
  f.name = "h";
  {
    tl::ir::Builder b(f);
    const tl::Tensor x = b.param({tl::DType::f32, {2, 3}});
    b.finish(std::vector<tl::Tensor>{tl::sum(x, 1)});
  }
  f.body.ops[0].results[0] = f.add_value({tl::DType::f32, {3}});
  f.body.results[0] = f.body.ops[0].results[0];
  tltest::expect_error_with<tl::Error>([&] { tl::ir::verify(f); },
                                       {"@h", "result 0 has type f32[3]", "f32[2]"});
}

TEST(IrDump, IsReadable) {
  tl::ir::Function f =
      tl::ir::trace("d", std::vector<TensorType>{{tl::DType::f32, {2}}},
                    [](std::span<const tl::Tensor> a) { return std::vector<tl::Tensor>{tl::exp(a[0])}; });
  EXPECT_EQ(tl::ir::to_string(f), "func @d(%0: f32[2]) {\n  %1 = exp(%0) : f32[2]\n  return(%1)\n}\n");
}

}  // namespace
