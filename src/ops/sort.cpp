// StableHLO's sort: N inputs of one shape sorted together along `dimension` by a
// comparator region on (lhs_0, rhs_0, lhs_1, rhs_1, ...). Always stable, which
// satisfies is_stable = false too.
#include <algorithm>
#include <cstring>
#include <functional>
#include <numeric>
#include <type_traits>

#include <fmt/format.h>

#include "core/dispatch_type.hpp"
#include "core/layout.hpp"
#include "core/tensor_impl.hpp"
#include "ir/op.hpp"
#include "ops/cpp_spelling.hpp"
#include "ops/region_rules.hpp"

namespace tlaloc::detail {
namespace {

using Kind = StableHloAttr::Kind;
using I64s = std::vector<std::int64_t>;
constexpr std::string_view kName = "stablehlo.sort";

std::int64_t sort_dim(std::span<const TensorType> in, const Attrs& attrs) {
  if (in.empty()) fail<ValueError>(kName, "needs at least one input");
  for (const TensorType& t : in)
    if (t.shape != in[0].shape)
      fail<ShapeError>(kName, "needs inputs of one shape, got {} and {}", shape_string(in[0].shape),
                       shape_string(t.shape));
  return normalize_axis(kName, attrs.get<std::int64_t>("dimension"), std::int64_t(in[0].shape.size()));
}

Tensor element(const Tensor& src, std::int64_t i) {
  Tensor t = empty({}, src.dtype());
  const std::size_t n = itemsize(src.dtype());
  std::memcpy(mutable_data<char>(t), static_cast<const char*>(src.raw_data()) + std::size_t(i) * n, n);
  return t;
}

bool comparator(const RegionCalls& regions, std::span<const Tensor> rows, std::int64_t a, std::int64_t b) {
  std::vector<Tensor> args;
  for (const Tensor& r : rows) {
    args.push_back(element(r, a));
    args.push_back(element(r, b));
  }
  const std::vector<Tensor> out = regions.call(0, args);
  if (out.size() != 1 || out[0].dtype() != DType::boolean || out[0].numel() != 1)
    fail<ShapeError>(kName, "the comparator must return one tensor<i1>");
  return *static_cast<const bool*>(out[0].raw_data());
}

// The comparator as a typed test on the first input, when it is one `compare LT`
// or `GT` of the first pair of an integer or boolean input (whose comparison has
// no NaN and no compare_type choice); empty otherwise.
using Less = std::function<bool(std::int64_t, std::int64_t)>;
template <class T>
Less typed_less(const Tensor& keys, bool ascending) {
  if constexpr (std::is_integral_v<T>) {
    const T* k = keys.data<T>();
    return [k, ascending](std::int64_t a, std::int64_t b) { return ascending ? k[a] < k[b] : k[b] < k[a]; };
  } else {
    return {};
  }
}
Less fast_comparator(const RegionCalls& regions, const Tensor& keys) {
  if (is_floating(keys.dtype())) return {};
  const RegionCalls::PairOp op = regions.first_pair_op(0);
  if (op.name != "compare") return {};
  const std::string& dir = op.attrs->get<std::string>("comparison_direction");
  if (dir != "LT" && dir != "GT") return {};
  const bool ascending = dir == "LT";
  Less less;
  TLALOC_SWITCH_ALL(keys.dtype(), kName, { less = typed_less<T>(keys, ascending); })
  return less;
}

std::vector<Tensor> sort_kernel(std::span<const Tensor> in, const Attrs& attrs, std::span<const TensorType>,
                                const RegionCalls& regions) {
  std::vector<TensorType> types;
  for (const Tensor& t : in) types.push_back(type_of(t));
  const std::int64_t dim = sort_dim(types, attrs);
  const Shape& s = in[0].shape();
  // Sorted rows are contiguous once `dimension` is the last axis.
  I64s perm, inverse(s.size());
  for (std::int64_t d = 0; d < std::int64_t(s.size()); ++d)
    if (d != dim) perm.push_back(d);
  perm.push_back(dim);
  for (std::size_t i = 0; i < perm.size(); ++i) inverse[std::size_t(perm[i])] = std::int64_t(i);
  std::vector<Tensor> rows, sorted;
  for (const Tensor& t : in) {
    rows.push_back(permute_copy(t, perm));
    sorted.push_back(empty(rows.back().shape(), t.dtype()));
  }
  const std::int64_t len = s[std::size_t(dim)];
  const std::int64_t count = len == 0 ? 0 : numel_of(s) / len;
  std::vector<std::int64_t> order(static_cast<std::size_t>(len));
  Less less = fast_comparator(regions, rows[0]);
  if (!less) less = [&](std::int64_t a, std::int64_t b) { return comparator(regions, rows, a, b); };
  for (std::int64_t r = 0; r < count; ++r) {
    std::iota(order.begin(), order.end(), r * len);
    std::stable_sort(order.begin(), order.end(), less);
    for (std::size_t i = 0; i < in.size(); ++i) {
      const std::size_t w = itemsize(in[i].dtype());
      const char* src = static_cast<const char*>(rows[i].raw_data());
      char* dst = mutable_data<char>(sorted[i]);
      for (std::int64_t k = 0; k < len; ++k)
        std::memcpy(dst + std::size_t(r * len + k) * w, src + std::size_t(order[std::size_t(k)]) * w, w);
    }
  }
  std::vector<Tensor> result;
  for (std::size_t i = 0; i < in.size(); ++i) result.push_back(permute_copy(sorted[i], inverse));
  return result;
}

const OpDef& sort_op = def_op("sort")
                           .result_count([](std::size_t n, const Attrs&) -> std::size_t { return n; })
                           .shape_rule([](std::span<const TensorType> in, const Attrs& attrs) {
                             sort_dim(in, attrs);
                             return std::vector<TensorType>(in.begin(), in.end());
                           })
                           .region_kernel(1, sort_kernel)
                           .jvp(sort_jvp)  // sort_rules.cpp
                           .vjp(sort_vjp)
                           .stablehlo({"stablehlo.sort",
                                       {StableHloAttr("dimension", Kind::i64),
                                        StableHloAttr("is_stable", Kind::boolean).optional()},
                                       ""})
                           // is_stable is not spelled: the sort is always stable.
                           .cpp([](CppOp& op) {
                             std::vector<std::string> inputs;
                             for (std::size_t i = 0; i < op.num_operands(); ++i)
                               inputs.push_back(op.operand(i));
                             return fmt::format("tl::lax::sort({{{}}}, {}, {}){}", cpp_list(inputs),
                                                op.attrs().get<std::int64_t>("dimension"), op.lambda(0),
                                                inputs.size() == 1 ? "[0]" : "");
                           });

}  // namespace
}  // namespace tlaloc::detail
