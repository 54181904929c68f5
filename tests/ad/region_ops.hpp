// StableHLO ops with regions (scatter, reduce, reduce_window, sort, map) for the
// gradient-check rows and tests: no public function makes them, so each call
// traces a one-op function recording the op with its region, then applies it
// (inlined into the caller's trace, or run by the interpreter on host tensors).
#pragma once

#include <string>
#include <vector>

#include "ad/engine.hpp"
#include "ops/region_rules.hpp"
#include "transforms/apply.hpp"

namespace region_ops {

namespace tl = tlaloc;
using tl::Tensor;
using tl::detail::Attrs;
using tl::detail::TensorType;
using Ints = std::vector<std::int64_t>;

// All results of `op` on `in` with one region built by `body` on arguments of
// `region_args` types.
inline std::vector<Tensor> call(const std::string& op, const std::vector<Tensor>& in, const Attrs& attrs,
                                const std::vector<TensorType>& region_args, const tl::ir::RegionBody& body) {
  std::vector<TensorType> types;
  for (const Tensor& t : in) types.push_back(tl::detail::type_of(t));
  const tl::ir::Function f = tl::ir::trace(op, types, [&](std::span<const Tensor> p) {
    return tl::detail::record_with_region(op, p, attrs, region_args, body);
  });
  return tl::transforms::apply(f, in);
}

// ...with a region applying registry op `body` ("add", "maximum") to two scalars
// of the first input's dtype; its first result.
inline Tensor with_body(const std::string& op, const std::vector<Tensor>& in, const Attrs& attrs,
                        const std::string& body) {
  const TensorType s{in[0].dtype(), {}};
  const tl::detail::OpDef& f = *tl::detail::find_op(body);
  return call(op, in, attrs, {s, s}, [&f](std::span<const Tensor> a) {
    return std::vector<Tensor>{tl::detail::call1(f, {a[0], a[1]})};
  })[0];
}

// sort of `in` along `dim` by the first input (LT ascending, GT descending); all
// results.
inline std::vector<Tensor> sort(const std::vector<Tensor>& in, std::int64_t dim, const char* direction = "LT") {
  std::vector<TensorType> args;
  for (const Tensor& t : in) args.insert(args.end(), 2, TensorType{t.dtype(), {}});
  const std::string dir = direction;
  return call("sort", in, {{"dimension", dim}}, args, [dir](std::span<const Tensor> a) {
    return std::vector<Tensor>{tl::detail::call1(*tl::detail::find_op("compare"), {a[0], a[1]},
                                                 {{"comparison_direction", dir}})};
  });
}

}  // namespace region_ops
