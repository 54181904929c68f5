// StableHLO's reduce: N inputs and N init values reduced over `dimensions` by a
// body region. A body that is one add/mul/max/min takes the reduction kernels of
// reduce.cpp; any other body is called once per element.
#include <algorithm>
#include <cstring>

#include <fmt/format.h>

#include "core/layout.hpp"
#include "core/tensor_impl.hpp"
#include "ir/op.hpp"
#include "ops/cpp_spelling.hpp"
#include "ops/region_calls.hpp"
#include "ops/region_rules.hpp"

namespace tlaloc::detail {
namespace {

using Kind = StableHloAttr::Kind;
using I64s = std::vector<std::int64_t>;
constexpr std::string_view kName = "stablehlo.reduce";

// The checked dimensions, and the inputs' shape with them removed.
Shape reduce_result_shape(std::span<const TensorType> in, const I64s& dims) {
  check_inputs_and_inits(kName, in);
  const Shape& s = in[0].shape;
  std::vector<bool> reduced(s.size(), false);
  for (std::int64_t d : dims) {
    if (d < 0 || d >= std::int64_t(s.size()) || reduced[std::size_t(d)])
      fail<ValueError>(kName, "dimensions {} are not distinct axes of {}", dims, shape_string(s));
    reduced[std::size_t(d)] = true;
  }
  Shape out;
  for (std::size_t d = 0; d < s.size(); ++d)
    if (!reduced[d]) out.push_back(s[d]);
  return out;
}

std::vector<TensorType> reduce_rule(std::span<const TensorType> in, const Attrs& attrs) {
  const Shape out = reduce_result_shape(in, attrs.get<I64s>("dimensions"));
  std::vector<TensorType> types;
  for (std::size_t i = in.size() / 2; i < in.size(); ++i) types.push_back({in[i].dtype, out});
  return types;
}

// The registry reduction a single-op body stands for.
const OpDef* fast_reduction(std::string_view body, DType t) {
  const bool boolean = t == DType::boolean;
  if (body == "add") return find_op("reduce_sum");
  if (body == "mul") return find_op("reduce_prod");
  if (body == "maximum" || (boolean && (body == "or" || body == "logical_or"))) return find_op("reduce_max");
  if (body == "minimum" || (boolean && (body == "and" || body == "logical_and")))
    return find_op("reduce_min");
  return nullptr;
}

// reduce.cpp's kernel over the dimensions, then the body once more with the init value.
Tensor fast_reduce(const OpDef& reduction, const OpDef& body, const Tensor& x, const Tensor& init,
                   const I64s& dims, const TensorType& out) {
  I64s axes = dims;
  std::sort(axes.begin(), axes.end());
  const Attrs a{{"axes", axes}, {"keepdims", false}};
  const TensorType x_type = type_of(x);
  const std::vector<TensorType> rt = reduction.infer({&x_type, 1}, a);
  Tensor r = reduction.run({&x, 1}, a, rt)[0];
  if (r.dtype() != out.dtype) r = r.astype(out.dtype);  // integer sums widen; this wraps back
  const Tensor pair[] = {r, init};
  const TensorType pair_types[] = {type_of(r), type_of(init)};
  return body.run(pair, {}, body.infer(pair_types, {}))[0];
}

// Calls the body for each element in row-major order of the reduced dimensions.
std::vector<Tensor> general_reduce(std::span<const Tensor> in, const I64s& dims,
                                   std::span<const TensorType> out, const RegionCalls& regions) {
  const std::size_t n = in.size() / 2;
  const Shape& s = in[0].shape();
  I64s perm;
  for (std::int64_t d = 0; d < std::int64_t(s.size()); ++d)
    if (std::find(dims.begin(), dims.end(), d) == dims.end()) perm.push_back(d);
  I64s sorted_dims = dims;
  std::sort(sorted_dims.begin(), sorted_dims.end());
  perm.insert(perm.end(), sorted_dims.begin(), sorted_dims.end());
  std::int64_t r = 1;
  for (std::int64_t d : dims) r *= s[std::size_t(d)];
  std::vector<Tensor> src, results;
  for (std::size_t i = 0; i < n; ++i) {
    src.push_back(s.empty() ? in[i] : permute_copy(in[i], perm));
    results.push_back(empty(out[i].shape, out[i].dtype));
  }
  const std::int64_t outer = numel_of(out[0].shape);
  std::vector<Tensor> args(2 * n);
  for (std::int64_t o = 0; o < outer; ++o) {
    for (std::size_t i = 0; i < n; ++i) args[i] = in[n + i];
    for (std::int64_t k = 0; k < r; ++k) {
      for (std::size_t i = 0; i < n; ++i) args[n + i] = scalar_at(src[i], o * r + k);
      std::vector<Tensor> acc = regions.call(0, args);
      if (acc.size() != n)
        fail<ShapeError>(kName, "the body returned {} values for {} inputs", acc.size(), n);
      for (std::size_t i = 0; i < n; ++i) {
        if (type_of(acc[i]) != TensorType{out[i].dtype, {}})
          fail<ShapeError>(kName, "the body's result {} is {}{}, expected a {} scalar", i,
                           dtype_name(acc[i].dtype()), shape_string(acc[i].shape()),
                           dtype_name(out[i].dtype));
        args[i] = std::move(acc[i]);
      }
    }
    for (std::size_t i = 0; i < n; ++i) {
      const std::size_t w = itemsize(out[i].dtype);
      std::memcpy(mutable_data<char>(results[i]) + std::size_t(o) * w, args[i].raw_data(), w);
    }
  }
  return results;
}

const OpDef& reduce_op =
    def_op("reduce")
        .result_count([](std::size_t n, const Attrs&) -> std::size_t { return n / 2; })
        .shape_rule(reduce_rule)
        .region_kernel(1,
                       [](std::span<const Tensor> in, const Attrs& attrs, std::span<const TensorType> out,
                          const RegionCalls& regions) {
                         const I64s& dims = attrs.get<I64s>("dimensions");
                         if (in.size() == 2 && in[0].dtype() == in[1].dtype()) {
                           const std::string_view body = regions.binary_body(0);
                           const OpDef* reduction = fast_reduction(body, in[0].dtype());
                           if (reduction != nullptr)
                             return std::vector<Tensor>{
                                 fast_reduce(*reduction, *find_op(body), in[0], in[1], dims, out[0])};
                         }
                         return general_reduce(in, dims, out, regions);
                       })
        .jvp(reduce_jvp)  // reduce_region_rules.cpp: one input, add / maximum / minimum
        .vjp(reduce_vjp)
        .stablehlo({"stablehlo.reduce", {StableHloAttr("dimensions", Kind::i64_array)}, "reduce"})
        .cpp([](CppOp& op) {
          const std::size_t n = op.num_operands() / 2;
          std::vector<std::string> inputs, inits;
          for (std::size_t i = 0; i < n; ++i) inputs.push_back(op.operand(i));
          for (std::size_t i = n; i < 2 * n; ++i) inits.push_back(op.operand(i));
          return fmt::format("tl::lax::reduce({{{}}}, {{{}}}, {}, {}){}", cpp_list(inputs), cpp_list(inits),
                             cpp_ints(op.attrs().get<I64s>("dimensions")), op.lambda(0), n == 1 ? "[0]" : "");
        });

}  // namespace
}  // namespace tlaloc::detail
