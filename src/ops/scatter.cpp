// StableHLO scatter with its full dimension numbers and update_computation region.
// Updates are applied one after another in the updates' row-major order; an
// update whose result index falls outside the operand is skipped (the spec leaves
// it implementation-defined).
#include <cmath>
#include <cstring>

#include <fmt/format.h>

#include "core/dispatch_type.hpp"
#include "core/wrapping.hpp"
#include "ops/cpp_spelling.hpp"
#include "ops/gather_scatter.hpp"
#include "ops/region_calls.hpp"
#include "ops/region_rules.hpp"

namespace tlaloc {
namespace {

using detail::Attrs;
using detail::contains;
using detail::fail;
using detail::Ints;
using detail::ints_or_empty;
using detail::TensorType;
using Hlo = detail::StableHloAttr;

struct ScatterDims {
  Ints window, inserted, input_batching, indices_batching, to_operand;
  std::int64_t index_vector_dim = 0;
};

ScatterDims scatter_dims(const Attrs& a) {
  return {ints_or_empty(a, "update_window_dims"),           ints_or_empty(a, "inserted_window_dims"),
          ints_or_empty(a, "input_batching_dims"),          ints_or_empty(a, "scatter_indices_batching_dims"),
          ints_or_empty(a, "scatter_dims_to_operand_dims"), a.get<std::int64_t>("index_vector_dim")};
}

std::vector<TensorType> scatter_types(std::span<const TensorType> in, const ScatterDims& g) {
  if (in.size() < 3 || in.size() % 2 == 0)
    fail<ValueError>("scatter", "expects N inputs, the indices and N updates, got {} operands", in.size());
  const std::size_t n = in.size() / 2;
  const TensorType& idx = in[n];
  if (!is_integral(idx.dtype))
    fail<DTypeError>("scatter", "scatter indices must be integers, got {}", idx.dtype);
  if (g.index_vector_dim < 0 || std::size_t(g.index_vector_dim) > idx.shape.size())
    fail<AxisError>("scatter", "index_vector_dim {} is out of range for indices {}", g.index_vector_dim,
                    shape_string(idx.shape));
  const std::size_t rank = in[0].shape.size();
  const std::int64_t len =
      std::size_t(g.index_vector_dim) < idx.shape.size() ? idx.shape[std::size_t(g.index_vector_dim)] : 1;
  bool ok = std::int64_t(g.to_operand.size()) == len &&
            g.input_batching.size() == g.indices_batching.size() &&
            g.window.size() + g.inserted.size() + g.input_batching.size() == rank;
  for (auto d : g.to_operand) ok = ok && d >= 0 && std::size_t(d) < rank;
  for (auto d : g.inserted) ok = ok && d >= 0 && std::size_t(d) < rank;
  for (auto d : g.input_batching) ok = ok && d >= 0 && std::size_t(d) < rank && !contains(g.inserted, d);
  for (auto d : g.indices_batching)
    ok = ok && d >= 0 && std::size_t(d) < idx.shape.size() && d != g.index_vector_dim;
  const std::size_t batch_rank =
      idx.shape.size() - (std::size_t(g.index_vector_dim) < idx.shape.size() ? 1 : 0);
  for (std::size_t k = 0; k < n; ++k) {
    const TensorType &x = in[k], &u = in[n + 1 + k];
    ok = ok && x.shape == in[0].shape && u.dtype == x.dtype && u.shape == in[n + 1].shape &&
         u.shape.size() == batch_rank + g.window.size();
  }
  for (auto d : g.window) ok = ok && d >= 0 && std::size_t(d) < in[n + 1].shape.size();
  if (!ok)
    fail<ShapeError>("scatter", "dimension numbers do not fit operand {}, indices {} and updates {}",
                     shape_string(in[0].shape), shape_string(idx.shape), shape_string(in[n + 1].shape));
  return std::vector<TensorType>(in.begin(), in.begin() + std::ptrdiff_t(n));
}

// The flat result index update index u goes to, or -1 when it is out of bounds.
std::int64_t target(const Ints& u, const ScatterDims& g, const detail::IndexTable& t, const Shape& x) {
  Ints batch, window;
  for (std::size_t d = 0; d < u.size(); ++d)
    (contains(g.window, std::int64_t(d)) ? window : batch).push_back(u[d]);
  const Ints vec = t.vector_at(batch);
  Ints at(x.size(), 0);
  for (std::size_t k = 0; k < vec.size(); ++k) at[std::size_t(g.to_operand[k])] = vec[k];
  for (std::size_t i = 0; i < g.input_batching.size(); ++i) {
    const std::int64_t ds = g.indices_batching[i];
    at[std::size_t(g.input_batching[i])] += batch[std::size_t(ds < g.index_vector_dim ? ds : ds - 1)];
  }
  for (std::size_t d = 0, w = 0; d < x.size(); ++d)
    if (!contains(g.inserted, std::int64_t(d)) && !contains(g.input_batching, std::int64_t(d)))
      at[d] += window[w++];
  for (std::size_t d = 0; d < x.size(); ++d)
    if (at[d] < 0 || at[d] >= x[d]) return -1;
  return detail::flat_index(at, x);
}

template <class T>
T combine(std::string_view body, T a, T b) {
  if (body == "add") return detail::wrapping_add(a, b);
  if (body == "mul") return detail::wrapping_mul(a, b);
  if constexpr (std::is_floating_point_v<T>)
    if (std::isnan(a) || std::isnan(b)) return a + b;  // maximum and minimum propagate NaN
  return body == "maximum" ? (a < b ? b : a) : (b < a ? b : a);
}

// One-region fast path on a type kernels compute in; false when it does not apply.
bool apply_fast(std::string_view body, Tensor& y, const Tensor& u,
                const std::vector<std::pair<std::int64_t, std::int64_t>>& moves) {
  if (body != "add" && body != "mul" && body != "maximum" && body != "minimum") return false;
  if (is_half(y.dtype())) return false;
  TLALOC_SWITCH_COMPUTE(y.dtype(), "scatter", {
    T* dst = detail::mutable_data<T>(y);
    const T* src = u.data<T>();
    for (const auto& [to, from] : moves) dst[to] = combine<T>(body, dst[to], src[from]);
  })
  return true;
}

std::vector<Tensor> scatter_kernel(std::span<const Tensor> in, const Attrs& attrs,
                                   const detail::RegionCalls& r) {
  const ScatterDims g = scatter_dims(attrs);
  const std::size_t n = in.size() / 2;
  std::vector<Tensor> out;
  for (std::size_t k = 0; k < n; ++k) {
    out.push_back(detail::empty(in[k].shape(), in[k].dtype()));
    if (in[k].numel() > 0)
      std::memcpy(out[k].impl().data(), in[k].raw_data(),
                  std::size_t(in[k].numel()) * itemsize(in[k].dtype()));
  }
  const Tensor& u0 = in[n + 1];
  if (u0.numel() == 0) return out;
  const detail::IndexTable t = detail::index_table(in[n], g.index_vector_dim);
  std::vector<std::pair<std::int64_t, std::int64_t>> moves;  // (result element, update element)
  Ints u(u0.shape().size(), 0);
  std::int64_t from = 0;
  do {
    const std::int64_t to = target(u, g, t, in[0].shape());
    if (to >= 0) moves.emplace_back(to, from);
    ++from;
  } while (detail::next_index(u, u0.shape()));
  if (n == 1 && apply_fast(r.binary_body(0), out[0], in[2], moves)) return out;
  for (const auto& [to, upd] : moves) {
    std::vector<Tensor> args;
    for (std::size_t k = 0; k < n; ++k) args.push_back(detail::scalar_at(out[k], to));
    for (std::size_t k = 0; k < n; ++k) args.push_back(detail::scalar_at(in[n + 1 + k], upd));
    const std::vector<Tensor> res = r.call(0, args);
    if (res.size() != n)
      fail("scatter", "the update computation returns {} values for {} inputs", res.size(), n);
    for (std::size_t k = 0; k < n; ++k) {
      if (res[k].numel() != 1 || res[k].dtype() != out[k].dtype())
        fail<DTypeError>("scatter", "the update computation returns {} {} for a {} input", res[k].dtype(),
                         shape_string(res[k].shape()), out[k].dtype());
      const std::size_t item = itemsize(out[k].dtype());
      std::memcpy(static_cast<char*>(out[k].impl().data()) + item * std::size_t(to), res[k].raw_data(), item);
    }
  }
  return out;
}

// tl::lax::scatter with the dimension numbers as a designated initializer.
std::string scatter_spelling(detail::CppOp& op) {
  const Attrs& a = op.attrs();
  const ScatterDims g = scatter_dims(a);
  const std::size_t n = op.num_operands() / 2;
  std::vector<std::string> inputs, updates;
  for (std::size_t i = 0; i < n; ++i) inputs.push_back(op.operand(i));
  for (std::size_t i = n + 1; i < 2 * n + 1; ++i) updates.push_back(op.operand(i));
  const std::string dims = fmt::format(
      "tl::lax::ScatterDimensionNumbers{{.update_window_dims = {}, .inserted_window_dims = {}, "
      ".input_batching_dims = {}, .scatter_indices_batching_dims = {}, .scatter_dims_to_operand_dims = {}, "
      ".index_vector_dim = {}}}",
      detail::cpp_ints(g.window), detail::cpp_ints(g.inserted), detail::cpp_ints(g.input_batching),
      detail::cpp_ints(g.indices_batching), detail::cpp_ints(g.to_operand), g.index_vector_dim);
  const auto flag = [&a](const char* key) { return detail::cpp_bool(a.has(key) && a.get<bool>(key)); };
  return fmt::format("tl::lax::scatter({{{}}}, {}, {{{}}}, {}, {}, {}, {}){}", detail::cpp_list(inputs),
                     op.operand(n), detail::cpp_list(updates), dims, op.lambda(0), flag("indices_are_sorted"),
                     flag("unique_indices"), n == 1 ? "[0]" : "");
}

const detail::OpDef& scatter_op =
    detail::def_op("scatter")
        .result_count([](std::size_t n, const Attrs&) -> std::size_t { return n / 2; })
        .inputs(-1)
        .shape_rule([](std::span<const TensorType> in, const Attrs& attrs) {
          return scatter_types(in, scatter_dims(attrs));
        })
        .region_kernel(1, [](std::span<const Tensor> in, const Attrs& attrs, std::span<const TensorType>,
                             const detail::RegionCalls& r) { return scatter_kernel(in, attrs, r); })
        .jvp(detail::scatter_jvp)  // scatter_rules.cpp: add regions only
        .vjp(detail::scatter_vjp)
        .stablehlo({"stablehlo.scatter",
                    {Hlo("scatter_dimension_numbers", Hlo::Kind::scatter_dimension_numbers),
                     Hlo("indices_are_sorted", Hlo::Kind::boolean).optional(),
                     Hlo("unique_indices", Hlo::Kind::boolean).optional()},
                    ""})
        .cpp(scatter_spelling);

}  // namespace
}  // namespace tlaloc
