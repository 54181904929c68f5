// The ops that stand for the creating functions and the *_like functions at build
// time (src/ops/creation_calls.cpp, like.cpp): each op's shape rule, given a call's
// arguments as its attributes, must give the type of the tensor the public function
// makes, and its kernel that tensor itself.
#include <gtest/gtest.h>

#include <tlaloc/tlaloc.hpp>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "ir/op.hpp"

namespace tl = tlaloc;
namespace detail = tlaloc::detail;

namespace {

struct Call {
  std::string fn;
  std::vector<tl::Tensor> tensors;
  std::vector<detail::AttrValue> arguments;  // after the tensors, as the call writes them
  std::function<tl::Tensor()> made;          // the public function itself
};

// The attributes of the call: its arguments in the order the op's public call names
// them, the rest its defaults.
detail::Attrs attributes(const detail::OpDef& def, const std::vector<detail::AttrValue>& arguments) {
  const detail::OpDef::PublicCall& pc = def.public_call();
  detail::Attrs attrs = pc.defaults;
  for (std::size_t k = 0; k < arguments.size(); ++k) attrs.set(pc.attributes.at(k), arguments[k]);
  return attrs;
}

void expect_stands_for(const Call& c) {
  SCOPED_TRACE(c.fn);
  const detail::OpDef* def = detail::find_called_as(c.fn);
  ASSERT_NE(def, nullptr);
  EXPECT_TRUE(def->has_no_derivative());
  const detail::Attrs attrs = attributes(*def, c.arguments);
  std::vector<detail::TensorType> in;
  for (const tl::Tensor& t : c.tensors) in.push_back(detail::type_of(t));
  const std::vector<detail::TensorType> out = def->infer(in, attrs);
  const tl::Tensor expected = c.made();
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].shape, expected.shape());
  EXPECT_EQ(out[0].dtype, expected.dtype());
  const tl::Tensor got = def->run(c.tensors, attrs, out).at(0);
  ASSERT_EQ(got.shape(), expected.shape());
  ASSERT_EQ(got.dtype(), expected.dtype());
  EXPECT_EQ(got.astype(tl::DType::f64).to_vector<double>(),
            expected.astype(tl::DType::f64).to_vector<double>());
}

using Ints = std::vector<std::int64_t>;

TEST(CreationCalls, ShapeRulesGiveTheTypesTheFunctionsMake) {
  const tl::Tensor x = tl::reshape(tl::arange(6).astype(tl::DType::f64), {2, 3});
  const std::vector<Call> calls{
      {"zeros",
       {},
       {Ints{2, 3}},
       [] {
         return tl::zeros({2, 3});
       }},
      {"ones", {}, {Ints{4}, tl::DType::f64}, [] { return tl::ones({4}, tl::DType::f64); }},
      {"full", {}, {Ints{2}, std::int64_t{3}}, [] { return tl::full({2}, std::int64_t{3}); }},
      {"full", {}, {Ints{2}, 1.5}, [] { return tl::full({2}, 1.5); }},
      {"full",
       {},
       {Ints{3, 1}, true},
       [] {
         return tl::full({3, 1}, true);
       }},
      {"full", {}, {Ints{2}, 1.5, tl::DType::f16}, [] { return tl::full({2}, 1.5, tl::DType::f16); }},
      {"scalar_tensor", {}, {2.5, tl::DType::f64}, [] { return tl::scalar_tensor(2.5, tl::DType::f64); }},
      {"eye", {}, {std::int64_t{3}}, [] { return tl::eye(3); }},
      {"eye",
       {},
       {std::int64_t{2}, std::int64_t{5}, std::int64_t{1}, tl::DType::i32},
       [] { return tl::eye(2, 5, 1, tl::DType::i32); }},
      {"zeros_like", {x}, {}, [x] { return tl::zeros_like(x); }},
      {"ones_like", {x}, {tl::DType::i64}, [x] { return tl::ones_like(x, tl::DType::i64); }},
      {"full_like", {x}, {std::int64_t{7}}, [x] { return tl::full_like(x, 7); }},
      {"full_like", {x}, {0.25, tl::DType::f32}, [x] { return tl::full_like(x, 0.25, tl::DType::f32); }},
  };
  for (const Call& c : calls) expect_stands_for(c);
}

TEST(CreationCalls, ShapeRulesRefuseWhatTheFunctionsRefuse) {
  const detail::OpDef* zeros = detail::find_called_as("zeros");
  const detail::OpDef* eye = detail::find_called_as("eye");
  ASSERT_NE(zeros, nullptr);
  ASSERT_NE(eye, nullptr);
  EXPECT_THROW(tl::zeros({2, -1}), tl::ValueError);
  EXPECT_THROW(zeros->infer({}, attributes(*zeros, {Ints{2, -1}})), tl::ValueError);
  EXPECT_THROW(tl::eye(-2), tl::ValueError);
  EXPECT_THROW(eye->infer({}, attributes(*eye, {std::int64_t{-2}})), tl::ValueError);
}

}  // namespace
