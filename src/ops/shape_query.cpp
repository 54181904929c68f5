// get_dimension_size: the size of one axis as a rank-0 i32, as StableHLO defines it.
#include <fmt/format.h>

#include "ir/op.hpp"
#include "ops/cpp_spelling.hpp"
#include "tlaloc/lax.hpp"

namespace tlaloc {
namespace {

using detail::Attrs;
using detail::fail;
using detail::TensorType;
using Hlo = detail::StableHloAttr;

const detail::OpDef& get_dimension_size_op =
    detail::def_op("get_dimension_size")
        .no_derivative()  // an integer
        .inputs(1)
        .shape_rule([](std::span<const TensorType> in, const Attrs& attrs) {
          const auto d = attrs.get<std::int64_t>("dimension");
          if (d < 0 || d >= std::int64_t(in[0].shape.size()))
            fail<AxisError>("get_dimension_size", "dimension {} is out of range for {}", d,
                            shape_string(in[0].shape));
          return std::vector<TensorType>{{DType::i32, {}}};
        })
        .kernel([](std::span<const Tensor> in, const Attrs& attrs, std::span<const TensorType>) {
          const std::int64_t n = in[0].shape()[std::size_t(attrs.get<std::int64_t>("dimension"))];
          return std::vector<Tensor>{scalar_tensor(n, DType::i32)};
        })
        .stablehlo(
            {"stablehlo.get_dimension_size", {Hlo("dimension", Hlo::Kind::i64).pretty("dim")}, "keywords"})
        .cpp([](detail::CppOp& op) {
          return detail::cpp_call("tl::lax::get_dimension_size", op,
                                  {fmt::format("{}", op.attrs().get<std::int64_t>("dimension"))});
        });

}  // namespace

Tensor lax::get_dimension_size(const Tensor& x, std::int64_t dimension) {
  return detail::call1(get_dimension_size_op, {x}, {{"dimension", dimension}});
}
}  // namespace tlaloc
