// StableHLO's compare: one op whose direction is an attribute, run by the
// registry's eq/ne/lt/le/gt/ge kernels on operands of one type.
#include "core/check.hpp"
#include "ops/op.hpp"

namespace tlaloc::detail {
namespace {

using Kind = StableHloAttr::Kind;
constexpr std::string_view kName = "stablehlo.compare";

const OpDef& kernel_for(const std::string& direction) {
  static constexpr std::pair<std::string_view, std::string_view> table[] = {
      {"EQ", "eq"}, {"NE", "ne"}, {"LT", "lt"}, {"LE", "le"}, {"GT", "gt"}, {"GE", "ge"}};
  for (const auto& [dir, op] : table)
    if (dir == direction) return *find_op(op);
  fail<ValueError>(kName, "unknown comparison_direction '{}'", direction);
}

const OpDef& compare_op =
    def_op("compare")
        .inputs(2)
        .shape_rule([](std::span<const TensorType> in, const Attrs& attrs) {
          if (in[0] != in[1])
            fail<ShapeError>(kName, "needs operands of one type, got {}{} and {}{}", dtype_name(in[0].dtype),
                             shape_string(in[0].shape), dtype_name(in[1].dtype), shape_string(in[1].shape));
          kernel_for(attrs.get<std::string>("comparison_direction"));
          if (attrs.has("compare_type") && attrs.get<std::string>("compare_type") == "TOTALORDER")
            fail<ValueError>(kName, "compare_type TOTALORDER is not supported yet");
          return std::vector<TensorType>{{DType::boolean, in[0].shape}};
        })
        .kernel([](std::span<const Tensor> in, const Attrs& attrs, std::span<const TensorType> out) {
          return kernel_for(attrs.get<std::string>("comparison_direction")).run(in, {}, out);
        })
        .stablehlo({"stablehlo.compare",
                    {StableHloAttr("comparison_direction", Kind::enum_value).of_enum("comparison_direction"),
                     StableHloAttr("compare_type", Kind::enum_value).of_enum("comparison_type").optional()},
                    "compare"});

}  // namespace
}  // namespace tlaloc::detail
