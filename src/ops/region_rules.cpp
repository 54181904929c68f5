#include "ops/region_rules.hpp"

#include <fmt/format.h>

#include "tlaloc/error.hpp"

namespace tlaloc::detail {

void refuse_rule(std::string_view op, std::string_view why) {
  throw NotDifferentiableError(fmt::format("tl::{}: {}", op, why));
}

std::vector<Tensor> record_with_region(std::string_view op, std::span<const Tensor> in, const Attrs& attrs,
                                       std::span<const TensorType> region_args, const ir::RegionBody& body) {
  // The trace the rule runs under: the one owning an operand (as call() picks), else
  // the innermost, when every operand happens to be a host constant.
  ir::Builder* b = ir::owner_of(in);
  if (b == nullptr) b = ir::current_builder();
  if (b == nullptr) refuse_rule(op, "its derivative rules run only while tracing");
  const OpDef& def = *find_op(op);
  std::vector<TensorType> types;
  for (const Tensor& t : in) types.push_back(type_of(t));
  std::vector<ir::Region> regions;
  regions.push_back(b->region(region_args, body));
  return b->record(def, in, attrs, def.infer(types, attrs), std::move(regions));
}

std::vector<Tensor> record_with_body(std::string_view op, std::span<const Tensor> in, const Attrs& attrs,
                                     DType t, std::string_view body) {
  const OpDef& f = *find_op(body);
  const TensorType scalars[] = {{t, {}}, {t, {}}};
  return record_with_region(op, in, attrs, scalars, [&f](std::span<const Tensor> s) {
    return std::vector<Tensor>{call1(f, {s[0], s[1]})};
  });
}

Tensor pad_with(const Tensor& x, double fill, const std::vector<std::int64_t>& lo,
                const std::vector<std::int64_t>& hi, const std::vector<std::int64_t>& interior) {
  static const OpDef& pad = *find_op("pad");
  return call1(pad, {x, scalar_tensor(fill, x.dtype())},
               {{"edge_padding_low", lo}, {"edge_padding_high", hi}, {"interior_padding", interior}});
}

}  // namespace tlaloc::detail
