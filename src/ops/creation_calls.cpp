// The creating functions tl::zeros, tl::ones, tl::full, tl::scalar_tensor and tl::eye
// make constants (src/core/creation.cpp): inside a trace their values enter the
// program as literals, and no op is recorded. Each still has an op here that stands
// for it: its public call and its shape rule are data tlaloc-grad reads to know a
// result's type at build time from literal arguments (tools/tlaloc-grad/shapes.cpp),
// and its kernel is the function itself. None carries a derivative.
#include <cstdint>
#include <string>
#include <vector>

#include "core/creation.hpp"
#include "core/tensor_impl.hpp"
#include "ir/op.hpp"
#include "ops/cpp_spelling.hpp"
#include "ops/scalar_attr.hpp"

namespace tlaloc {
namespace {

using detail::Attrs;
using detail::OpDef;
using detail::TensorType;

using Made = Tensor (*)(const Attrs& attrs);
using Typed = TensorType (*)(const Attrs& attrs);

Shape shape_attr(const Attrs& a) { return a.get<std::vector<std::int64_t>>("shape"); }
DType dtype_attr(const Attrs& a) { return a.get<DType>("dtype"); }

// An op of no operands standing for the creating function `fn`, whose arguments are
// `attributes`; `type` gives the result's type without making it.
OpDef& def_made(std::string fn, std::vector<std::string> attributes, Attrs defaults, Typed type, Made make) {
  return detail::def_op(fn)
      .inputs(0)
      .shape_rule([type](std::span<const TensorType>, const Attrs& a) {
        const TensorType t = type(a);
        detail::numel_of(t.shape);  // refuses a negative size, as making it would
        return std::vector<TensorType>{t};
      })
      .kernel([make](std::span<const Tensor>, const Attrs& a, std::span<const TensorType>) {
        return std::vector<Tensor>{make(a)};
      })
      .no_derivative()
      .cpp(detail::cpp_fn_with("tl::" + fn, attributes))
      .called_as({.names = {fn}, .attributes = std::move(attributes), .defaults = std::move(defaults)});
}

Scalar value_of(const Attrs& a) { return detail::scalar_attr("full", a, "value"); }
DType full_dtype(const Attrs& a) {
  return a.has("dtype") ? dtype_attr(a) : detail::default_dtype(value_of(a));
}

const Attrs kF32{{"dtype", DType::f32}};

const OpDef& zeros_op = def_made(
    "zeros", {"shape", "dtype"}, kF32,
    [](const Attrs& a) {
      return TensorType{dtype_attr(a), shape_attr(a)};
    },
    [](const Attrs& a) { return zeros(shape_attr(a), dtype_attr(a)); });
const OpDef& ones_op = def_made(
    "ones", {"shape", "dtype"}, kF32,
    [](const Attrs& a) {
      return TensorType{dtype_attr(a), shape_attr(a)};
    },
    [](const Attrs& a) { return ones(shape_attr(a), dtype_attr(a)); });
const OpDef& full_op = def_made(
    "full", {"shape", "value", "dtype"}, {},
    [](const Attrs& a) {
      return TensorType{full_dtype(a), shape_attr(a)};
    },
    [](const Attrs& a) { return full(shape_attr(a), value_of(a), full_dtype(a)); });
const OpDef& scalar_tensor_op = def_made(
    "scalar_tensor", {"value", "dtype"}, {},
    [](const Attrs& a) {
      return TensorType{dtype_attr(a), {}};
    },
    [](const Attrs& a) { return scalar_tensor(value_of(a), dtype_attr(a)); });

std::int64_t int_attr(const Attrs& a, std::string_view name) { return a.get<std::int64_t>(name); }
const OpDef& eye_op = def_made(
    "eye", {"n", "m", "k", "dtype"}, {{"m", std::int64_t{-1}}, {"k", std::int64_t{0}}, {"dtype", DType::f32}},
    [](const Attrs& a) {
      return TensorType{dtype_attr(a), detail::eye_shape(int_attr(a, "n"), int_attr(a, "m"))};
    },
    [](const Attrs& a) { return eye(int_attr(a, "n"), int_attr(a, "m"), int_attr(a, "k"), dtype_attr(a)); });

}  // namespace

Scalar detail::scalar_attr(std::string_view op, const Attrs& attrs, std::string_view name) {
  for (const auto& [key, v] : attrs.items()) {
    if (key != name) continue;
    if (const auto* d = std::get_if<double>(&v)) return *d;
    if (const auto* i = std::get_if<std::int64_t>(&v)) return *i;
    if (const auto* b = std::get_if<bool>(&v)) return *b;
    if (const auto* w = std::get_if<Written>(&v)) throw_written(name, *w);
  }
  fail(op, "needs a {} attribute holding a double, an int64 or a bool", name);
}

}  // namespace tlaloc
