// tl::lax's ops with a region (lax.hpp): the callable is traced into a one-op
// program, which transforms::apply runs on host tensors or inlines into the caller's
// trace. The op's shape rule checks the arguments before the callable runs.
#include <fmt/format.h>

#include "ad/engine.hpp"
#include "core/check.hpp"
#include "ir/builder.hpp"
#include "ir/op.hpp"
#include "ops/lax_attrs.hpp"
#include "tlaloc/lax.hpp"
#include "transforms/apply.hpp"

namespace tlaloc {
namespace {

using detail::Attrs;
using detail::TensorType;

std::vector<TensorType> types_of(std::span<const Tensor> xs) {
  std::vector<TensorType> t;
  for (const Tensor& x : xs) t.push_back(detail::type_of(x));
  return t;
}

// One region of an op: the types of its scalar arguments and the callable.
struct RegionSpec {
  std::vector<TensorType> args;
  const lax::Region* body;
};

// Registry op `name` on `in` with its regions traced from the callables. With
// `result_dtype_from_region`, the op's "result_dtype" attribute is the first
// region's first result's dtype (map).
std::vector<Tensor> apply_with_regions(const char* name, const std::vector<Tensor>& in, const Attrs& attrs,
                                       const std::vector<RegionSpec>& specs,
                                       bool result_dtype_from_region = false) {
  const detail::OpDef& def = *detail::find_op(name);
  const std::vector<TensorType> types = types_of(in);
  def.infer(types, attrs);  // bad arguments fail here, before the regions are traced
  const ir::Function f = ir::trace(name, types, [&](std::span<const Tensor> p) {
    ir::Builder& b = *ir::owner_of(p);
    std::vector<DType> out_dtypes;
    std::vector<ir::Region> regions;
    for (const RegionSpec& spec : specs)
      regions.push_back(b.region(spec.args, [&](std::span<const Tensor> a) {
        std::vector<Tensor> r = (*spec.body)(a);
        if (regions.empty())
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
  return transforms::apply(f, in);
}

std::vector<Tensor> apply_with_region(const char* name, const std::vector<Tensor>& in, const Attrs& attrs,
                                      const std::vector<TensorType>& region_args, const lax::Region& body,
                                      bool result_dtype_from_region = false) {
  return apply_with_regions(name, in, attrs, {{region_args, &body}}, result_dtype_from_region);
}


TensorType scalar_of(const Tensor& x) { return {x.dtype(), {}}; }

// reduce and reduce_window: the operands (the inputs, then the initial values) and
// their region's arguments (the accumulators, then one element of each input).
struct Reduction {
  std::vector<Tensor> operands;
  std::vector<TensorType> region_args;
};
Reduction reduction(const std::vector<Tensor>& inputs, const std::vector<Tensor>& inits) {
  Reduction r{inputs, {}};
  r.operands.insert(r.operands.end(), inits.begin(), inits.end());
  for (const Tensor& t : inits) r.region_args.push_back(scalar_of(t));
  for (const Tensor& t : inputs) r.region_args.push_back(scalar_of(t));
  return r;
}

}  // namespace

std::vector<Tensor> lax::reduce(const std::vector<Tensor>& inputs, const std::vector<Tensor>& inits,
                                const std::vector<std::int64_t>& dimensions, const Region& body) {
  const Reduction r = reduction(inputs, inits);
  return apply_with_region("reduce", r.operands, {{"dimensions", dimensions}}, r.region_args, body);
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

std::vector<Tensor> lax::reduce_window(const std::vector<Tensor>& inputs, const std::vector<Tensor>& inits,
                                       const std::vector<std::int64_t>& window_dimensions,
                                       const std::vector<std::int64_t>& window_strides,
                                       const std::vector<std::int64_t>& base_dilations,
                                       const std::vector<std::int64_t>& window_dilations,
                                       const std::vector<std::int64_t>& padding_low,
                                       const std::vector<std::int64_t>& padding_high, const Region& body) {
  const Reduction r = reduction(inputs, inits);
  const std::string shape = inputs.empty() ? "no inputs" : "input " + shape_string(inputs[0].shape());
  const Attrs attrs{{"window_dimensions", window_dimensions},
                    {"window_strides", window_strides},
                    {"base_dilations", base_dilations},
                    {"window_dilations", window_dilations},
                    {"padding", detail::interleaved_padding("lax::reduce_window", padding_low, padding_high, shape)}};
  return apply_with_region("reduce_window", r.operands, attrs, r.region_args, body);
}

std::vector<Tensor> lax::scatter(const std::vector<Tensor>& inputs, const Tensor& scatter_indices,
                                 const std::vector<Tensor>& updates, const ScatterDimensionNumbers& dims,
                                 const Region& update_computation, bool indices_are_sorted,
                                 bool unique_indices) {
  std::vector<Tensor> in = inputs;
  in.push_back(scatter_indices);
  in.insert(in.end(), updates.begin(), updates.end());
  std::vector<TensorType> args;
  for (const Tensor& t : inputs) args.push_back(scalar_of(t));
  for (const Tensor& t : updates) args.push_back(scalar_of(t));
  const Attrs attrs{{"update_window_dims", dims.update_window_dims},
                    {"inserted_window_dims", dims.inserted_window_dims},
                    {"input_batching_dims", dims.input_batching_dims},
                    {"scatter_indices_batching_dims", dims.scatter_indices_batching_dims},
                    {"scatter_dims_to_operand_dims", dims.scatter_dims_to_operand_dims},
                    {"index_vector_dim", dims.index_vector_dim},
                    {"indices_are_sorted", indices_are_sorted},
                    {"unique_indices", unique_indices}};
  return apply_with_region("scatter", in, attrs, args, update_computation);
}

Tensor lax::select_and_scatter(const Tensor& operand, const Tensor& source, const Tensor& init_value,
                               const std::vector<std::int64_t>& window_dimensions,
                               const std::vector<std::int64_t>& window_strides,
                               const std::vector<std::int64_t>& padding_low,
                               const std::vector<std::int64_t>& padding_high, const Region& select,
                               const Region& scatter) {
  const Attrs attrs{{"window_dimensions", window_dimensions},
                    {"window_strides", window_strides},
                    {"padding", detail::interleaved_padding("lax::select_and_scatter", padding_low, padding_high,
                                                               "operand " + shape_string(operand.shape()))}};
  const TensorType o = scalar_of(operand), s = scalar_of(source);
  return apply_with_regions("select_and_scatter", {operand, source, init_value}, attrs,
                            {{{o, o}, &select}, {{s, s}, &scatter}})[0];
}

}  // namespace tlaloc
