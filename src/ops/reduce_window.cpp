// StableHLO's reduce_window: N inputs and N init values; each output reduces one
// window of the base-dilated, padded inputs (holes and padding hold the init
// values) with the body region. A body that is one add/mul/maximum/minimum of a
// single non-boolean input runs a typed loop; any other body is called per cell.
#include <cstring>
#include <string>

#include <fmt/format.h>

#include "core/dispatch_type.hpp"
#include "core/tensor_impl.hpp"
#include "ops/cpp_spelling.hpp"
#include "ops/region_calls.hpp"
#include "ops/region_rules.hpp"
#include "ops/window.hpp"

namespace tlaloc::detail {
namespace {

using Kind = StableHloAttr::Kind;
constexpr std::string_view kName = "stablehlo.reduce_window";

std::vector<TensorType> reduce_window_rule(std::span<const TensorType> in, const Attrs& attrs) {
  const std::size_t n = check_inputs_and_inits(kName, in);
  const Shape& s = in[0].shape;
  const Shape out = window_counts(s, read_window(kName, attrs, s.size()));
  std::vector<TensorType> types;
  for (std::size_t i = n; i < in.size(); ++i) types.push_back({in[i].dtype, out});
  return types;
}

template <class R, class T>
void fast_loop(const Tensor& x, const Tensor& init, const WindowCells& win, Tensor& y) {
  const T* src = x.data<T>();
  T* dst = mutable_data<T>(y);
  const typename R::Acc pad = R::load(*init.data<T>());
  std::vector<std::int64_t> cells(std::size_t(win.size()));
  for (std::int64_t o = 0; o < win.outputs(); ++o) {
    win.cells(o, cells.data());
    typename R::Acc acc = pad;
    for (std::int64_t c : cells) acc = R::combine(acc, c < 0 ? pad : R::load(src[c]));
    dst[o] = R::store(acc);
  }
}

// The typed loop for a one-op body, or false when there is none.
bool fast_path(std::string_view body, const Tensor& x, const Tensor& init, const WindowCells& win,
               Tensor& y) {
  if (x.dtype() == DType::boolean || init.dtype() != x.dtype()) return false;
  if (body != "add" && body != "mul" && body != "maximum" && body != "minimum") return false;
  TLALOC_SWITCH_ALL(x.dtype(), kName, {
    if (body == "add")
      fast_loop<WrapSum<T>, T>(x, init, win, y);
    else if (body == "mul")
      fast_loop<WrapProd<T>, T>(x, init, win, y);
    else if (body == "maximum")
      fast_loop<Max<T>, T>(x, init, win, y);
    else
      fast_loop<Min<T>, T>(x, init, win, y);
  })
  return true;
}

// The spec's schedule: the init values, then each cell of the window in row-major order.
void general_path(std::span<const Tensor> in, const WindowCells& win, std::span<Tensor> out,
                  const RegionCalls& regions) {
  const std::size_t n = in.size() / 2;
  std::vector<std::int64_t> cells(std::size_t(win.size()));
  std::vector<Tensor> args(2 * n);
  for (std::int64_t o = 0; o < win.outputs(); ++o) {
    win.cells(o, cells.data());
    for (std::size_t i = 0; i < n; ++i) args[i] = in[n + i];
    for (std::int64_t c : cells) {
      for (std::size_t i = 0; i < n; ++i) args[n + i] = c < 0 ? in[n + i] : scalar_at(in[i], c);
      std::vector<Tensor> acc = regions.call(0, args);
      if (acc.size() != n)
        fail<ShapeError>(kName, "the body returned {} values for {} inputs", acc.size(), n);
      for (std::size_t i = 0; i < n; ++i) {
        if (type_of(acc[i]) != TensorType{out[i].dtype(), {}})
          fail<ShapeError>(kName, "the body's result {} is {}{}, expected a {} scalar", i,
                           dtype_name(acc[i].dtype()), shape_string(acc[i].shape()),
                           dtype_name(out[i].dtype()));
        args[i] = std::move(acc[i]);
      }
    }
    for (std::size_t i = 0; i < n; ++i) {
      const std::size_t w = itemsize(out[i].dtype());
      std::memcpy(mutable_data<char>(out[i]) + std::size_t(o) * w, args[i].raw_data(), w);
    }
  }
}

std::vector<Tensor> reduce_window_kernel(std::span<const Tensor> in, const Attrs& attrs,
                                         std::span<const TensorType> out, const RegionCalls& regions) {
  const Shape& s = in[0].shape();
  const WindowCells win(s, read_window(kName, attrs, s.size()));
  std::vector<Tensor> results;
  for (const TensorType& t : out) results.push_back(empty(t.shape, t.dtype));
  if (in.size() == 2 && fast_path(regions.binary_body(0), in[0], in[1], win, results[0])) return results;
  general_path(in, win, results, regions);
  return results;
}

// tl::lax::reduce_window with every window attribute spelled, defaults filled in.
std::string reduce_window_spelling(CppOp& op) {
  const std::size_t n = op.num_operands() / 2;
  const WindowSpec w = read_window(kName, op.attrs(), op.operand_type(0).shape.size());
  std::vector<std::string> inputs, inits;
  for (std::size_t i = 0; i < n; ++i) inputs.push_back(op.operand(i));
  for (std::size_t i = n; i < 2 * n; ++i) inits.push_back(op.operand(i));
  return fmt::format("tl::lax::reduce_window({{{}}}, {{{}}}, {}, {}, {}, {}, {}, {}, {}){}", cpp_list(inputs),
                     cpp_list(inits), cpp_ints(w.dims), cpp_ints(w.strides), cpp_ints(w.base_dilations),
                     cpp_ints(w.window_dilations), cpp_ints(w.pad_lo), cpp_ints(w.pad_hi), op.lambda(0),
                     n == 1 ? "[0]" : "");
}

const OpDef& reduce_window_op =
    def_op("reduce_window")
        .result_count([](std::size_t n, const Attrs&) -> std::size_t { return n / 2; })
        .shape_rule(reduce_window_rule)
        .region_kernel(1, reduce_window_kernel)
        .jvp(reduce_window_jvp)  // reduce_window_rules.cpp: one input, add / maximum / minimum
        .vjp(reduce_window_vjp)
        .stablehlo({"stablehlo.reduce_window",
                    {StableHloAttr("window_dimensions", Kind::i64_array),
                     StableHloAttr("window_strides", Kind::i64_array).optional(),
                     StableHloAttr("base_dilations", Kind::i64_array).optional(),
                     StableHloAttr("window_dilations", Kind::i64_array).optional(),
                     StableHloAttr("padding", Kind::i64_matrix).optional()},
                    ""})
        .cpp(reduce_window_spelling);

}  // namespace
}  // namespace tlaloc::detail
