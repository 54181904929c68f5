// tl::lax's ops with a region (lax.hpp): the callable is traced into a one-op
// program, which ad::apply runs on host tensors or inlines into the caller's
// trace. The op's shape rule checks the arguments before the callable runs.
#include <fmt/format.h>

#include "ad/engine.hpp"
#include "ir/builder.hpp"
#include "ops/op.hpp"
#include "tlaloc/lax.hpp"

namespace tlaloc {
namespace {

using detail::Attrs;
using detail::TensorType;

std::vector<TensorType> types_of(std::span<const Tensor> xs) {
  std::vector<TensorType> t;
  for (const Tensor& x : xs) t.push_back(detail::type_of(x));
  return t;
}

// Registry op `name` on `in` with one region traced from `body` on scalars of
// `region_args` types. With `result_dtype_from_region`, the op's "result_dtype"
// attribute is the region's first result's dtype (map).
std::vector<Tensor> apply_with_region(const char* name, const std::vector<Tensor>& in, const Attrs& attrs,
                                      const std::vector<TensorType>& region_args, const lax::Region& body,
                                      bool result_dtype_from_region = false) {
  const detail::OpDef& def = *detail::find_op(name);
  const std::vector<TensorType> types = types_of(in);
  def.infer(types, attrs);  // bad arguments fail here, before the region is traced
  const ir::Function f = ir::trace(name, types, [&](std::span<const Tensor> p) {
    ir::Builder& b = *ir::owner_of(p);
    std::vector<DType> out_dtypes;
    std::vector<ir::Region> regions;
    regions.push_back(b.region(region_args, [&](std::span<const Tensor> a) {
      std::vector<Tensor> r = body(a);
      for (const Tensor& t : r) out_dtypes.push_back(t.dtype());
      return r;
    }));
    Attrs at = attrs;
    if (result_dtype_from_region) {
      if (out_dtypes.size() != 1)
        throw ShapeError(fmt::format("tl::lax::{}: the region must return one scalar, got {} values", name,
                                     out_dtypes.size()));
      at.set("result_dtype", out_dtypes[0]);
    }
    return b.record(def, p, at, def.infer(types, at), std::move(regions));
  });
  return ad::apply(f, in);
}

TensorType scalar_of(const Tensor& x) { return {x.dtype(), {}}; }

}  // namespace

std::vector<Tensor> lax::reduce(const std::vector<Tensor>& inputs, const std::vector<Tensor>& inits,
                                const std::vector<std::int64_t>& dimensions, const Region& body) {
  std::vector<Tensor> in = inputs;
  in.insert(in.end(), inits.begin(), inits.end());
  std::vector<TensorType> args;
  for (const Tensor& t : inits) args.push_back(scalar_of(t));
  for (const Tensor& t : inputs) args.push_back(scalar_of(t));
  return apply_with_region("reduce", in, {{"dimensions", dimensions}}, args, body);
}

std::vector<Tensor> lax::sort(const std::vector<Tensor>& inputs, std::int64_t dimension, const Region& comparator) {
  std::vector<TensorType> args;
  for (const Tensor& t : inputs) args.insert(args.end(), 2, scalar_of(t));
  return apply_with_region("sort", inputs, {{"dimension", dimension}}, args, comparator);
}

Tensor lax::map(const std::vector<Tensor>& inputs, const Region& body) {
  std::vector<std::int64_t> dims;
  if (!inputs.empty())
    for (std::int64_t d = 0; d < std::int64_t(inputs[0].shape().size()); ++d) dims.push_back(d);
  std::vector<TensorType> args;
  for (const Tensor& t : inputs) args.push_back(scalar_of(t));
  return apply_with_region("map", inputs, {{"dimensions", dims}}, args, body, true)[0];
}

}  // namespace tlaloc
