#include "ops/untyped_calls.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "core/check.hpp"
#include "ops/rule.hpp"

namespace tlaloc::detail {

OpDef& def_steps(std::string_view name, int inputs, Steps steps) {
  const auto run = [steps](std::span<const Tensor> in, const Attrs& attrs) {
    return std::vector<Tensor>{steps(in, attrs)};
  };
  return def_op(name)
      .inputs(inputs)
      .kernel([run](std::span<const Tensor> in, const Attrs& attrs, std::span<const TensorType>) {
        return run(in, attrs);
      })
      .lower(run);
}

Tensor with_first(const OpDef& def, const Tensor& first, const Rule& r) {
  std::vector<Tensor> in{first};
  for (std::size_t i = 1; i < r.num_in(); ++i) in.push_back(r.in(i));
  return call1(def, in, r.attrs());
}

OpDef& shaped_like_second(OpDef& def) {
  return def.linear({0})
      .type_origin(OpDef::TypeOrigin{1, 0})
      .shape_rule([](std::span<const TensorType> in, const Attrs&) {
        return std::vector<TensorType>{{in[0].dtype, in[1].shape}};
      })
      .jvp([](const Rule& r) {
        return std::vector<Tensor>{r.has_tangent(0) ? with_first(*r.op(), r.tangent(0), r) : Tensor()};
      });
}

std::vector<std::int64_t> pair_attr(const Pair& p) { return {p[0], p[1]}; }
Pair attr_pair(std::string_view op, const Attrs& attrs, std::string_view name) {
  const auto& v = attrs.get<std::vector<std::int64_t>>(name);
  if (v.size() != 2) fail<ValueError>(op, "attribute {} needs 2 values, got {}", name, v);
  return {v[0], v[1]};
}
std::string cpp_pair(const Pair& p) { return fmt::format("{{{}, {}}}", p[0], p[1]); }

}  // namespace tlaloc::detail
