// StableHLO's map: a region applied to the inputs' elements one position at a
// time. `dimensions` must list every axis in order (the spec's only choice).

#include <fmt/format.h>

#include "core/tensor_impl.hpp"
#include "ops/cpp_spelling.hpp"
#include "ops/region_calls.hpp"
#include "ops/region_rules.hpp"

namespace tlaloc::detail {
namespace {

using Kind = StableHloAttr::Kind;
using I64s = std::vector<std::int64_t>;
constexpr std::string_view kName = "stablehlo.map";

std::vector<TensorType> map_rule(std::span<const TensorType> in, const Attrs& attrs) {
  if (in.empty()) fail<ValueError>(kName, "needs at least one input");
  for (const TensorType& t : in)
    if (t.shape != in[0].shape)
      fail<ShapeError>(kName, "needs inputs of one shape, got {} and {}", shape_string(in[0].shape),
                       shape_string(t.shape));
  const I64s& dims = attrs.get<I64s>("dimensions");
  bool identity = dims.size() == in[0].shape.size();
  for (std::size_t i = 0; identity && i < dims.size(); ++i) identity = dims[i] == std::int64_t(i);
  if (!identity)
    fail<ValueError>(kName, "dimensions must be 0..rank-1 in order for {}, got {}", shape_string(in[0].shape),
                     dims);
  // The result's element type is the region's; the parser takes it from the result type.
  const DType t = attrs.has("result_dtype") ? attrs.get<DType>("result_dtype") : in[0].dtype;
  return {{t, in[0].shape}};
}

std::vector<Tensor> map_kernel(std::span<const Tensor> in, const Attrs&, std::span<const TensorType> out,
                               const RegionCalls& regions) {
  return {map_region(kName, in, out[0], regions)};
}

// ---- derivatives ------------------------------------------------------------------
// A map whose region is one binary op of its two arguments ("add", "mul",
// "atan2") is that op applied elementwise, so its rules are the op's own, run on
// the map's operands and result. Any other region is refused by name: a rule sees
// only which binary op a region is, not the region.
const OpDef& body_op(const Rule& r, bool forward) {
  const char* mode = forward ? "forward" : "reverse";
  const std::string_view body = r.body(0);
  const OpDef* op = body.empty() ? nullptr : find_op(body);
  if (op == nullptr)
    refuse_rule("map", fmt::format("{} mode needs a region that is one binary op of its two arguments, got {}", mode,
                                   r.num_in() == 2 ? "a longer region" : fmt::format("{} inputs", r.num_in())));
  if (!op->has_no_derivative() && !(forward ? bool(op->jvp_rule()) : bool(op->vjp_rule())))
    refuse_rule("map", fmt::format("{} mode: its region's op '{}' has no rule", mode, body));
  return *op;
}

std::vector<Tensor> map_jvp(const Rule& r) {
  const OpDef& op = body_op(r, true);
  if (op.has_no_derivative()) return {Tensor()};
  static const Attrs none;
  const Tensor in[] = {r.in(0), r.in(1)}, out[] = {r.out(0)}, seeds[] = {r.tangent(0), r.tangent(1)};
  return op.jvp_rule()(Rule(op, in, out, none, seeds, {}));
}

std::vector<Tensor> map_vjp(const Rule& r) {
  const OpDef& op = body_op(r, false);
  if (op.has_no_derivative()) return std::vector<Tensor>(2);
  static const Attrs none;
  const Tensor in[] = {r.in(0), r.in(1)}, out[] = {r.out(0)}, seeds[] = {r.cotangent(0)};
  return op.vjp_rule()(Rule(op, in, out, none, seeds, {r.wants(0), r.wants(1)}));
}

const OpDef& map_op = def_op("map")
                          .shape_rule(map_rule)
                          .region_kernel(1, map_kernel)
                          .jvp(map_jvp)
                          .vjp(map_vjp)
                          .stablehlo({"stablehlo.map",
                                      {StableHloAttr("dimensions", Kind::i64_array),
                                       StableHloAttr("result_dtype", Kind::result_dtype)},
                                      ""})
                          .cpp([](CppOp& op) {
                            std::vector<std::string> inputs;
                            for (std::size_t i = 0; i < op.num_operands(); ++i) inputs.push_back(op.operand(i));
                            return fmt::format("tl::lax::map({{{}}}, {})", cpp_list(inputs), op.lambda(0));
                          });

}  // namespace
}  // namespace tlaloc::detail
