// StableHLO's select_and_scatter: in each window of the padded operand the
// `select` region picks one element (it keeps the current pick while select
// returns true), and the source value for that window is combined into the
// result at the pick with the `scatter` region. Padding cells are never picked;
// a window of padding only scatters nothing. Max-pool's gradient is this op.
#include <cstring>

#include "core/tensor_impl.hpp"
#include "ops/cpp_spelling.hpp"
#include "ops/region_calls.hpp"
#include "ops/region_rules.hpp"
#include "ops/window.hpp"

namespace tlaloc::detail {
namespace {

using Kind = StableHloAttr::Kind;
constexpr std::string_view kName = "stablehlo.select_and_scatter";

std::vector<TensorType> select_and_scatter_rule(std::span<const TensorType> in, const Attrs& attrs) {
  if (in.size() != 3)
    fail<ValueError>(kName, "takes operand, source and init_value, got {} operands", in.size());
  const TensorType &operand = in[0], &source = in[1], &init = in[2];
  if (source.dtype != operand.dtype || init.dtype != operand.dtype || !init.shape.empty())
    fail<ShapeError>(
        kName, "needs source and a scalar init_value of the operand's type {}, got {}{} and {}{}",
        operand.dtype, source.dtype, shape_string(source.shape), init.dtype, shape_string(init.shape));
  const Shape windows = window_counts(operand.shape, read_window(kName, attrs, operand.shape.size()));
  if (windows != source.shape)
    fail<ShapeError>(kName, "source {} must have one element per window of operand {}, that is {}",
                     shape_string(source.shape), shape_string(operand.shape), shape_string(windows));
  return {operand};
}

Tensor checked(std::vector<Tensor> r, DType t, const char* region) {
  if (r.size() != 1 || type_of(r[0]) != TensorType{t, {}})
    fail<ShapeError>(kName, "the {} region must return one {} scalar", region, dtype_name(t));
  return std::move(r[0]);
}

// The cell the select region picks among the window's real cells, or -1.
std::int64_t pick(const Tensor& operand, std::span<const std::int64_t> cells, const RegionCalls& regions) {
  std::int64_t chosen = -1;
  Tensor best;
  for (std::int64_t c : cells) {
    if (c < 0) continue;
    Tensor v = scalar_at(operand, c);
    if (chosen >= 0) {
      const Tensor args[] = {best, v};
      if (*checked(regions.call(0, args), DType::boolean, "select").data<bool>()) continue;
    }
    chosen = c;
    best = std::move(v);
  }
  return chosen;
}

std::vector<Tensor> select_and_scatter_kernel(std::span<const Tensor> in, const Attrs& attrs,
                                              std::span<const TensorType> out, const RegionCalls& regions) {
  const Tensor &operand = in[0], &source = in[1], &init = in[2];
  const WindowCells win(operand.shape(), read_window(kName, attrs, std::size_t(operand.rank())));
  const DType t = out[0].dtype;
  const std::size_t w = itemsize(t);
  Tensor y = empty(out[0].shape, t);
  for (std::int64_t k = 0; k < y.numel(); ++k)
    std::memcpy(mutable_data<char>(y) + std::size_t(k) * w, init.raw_data(), w);
  std::vector<std::int64_t> cells(std::size_t(win.size()));
  for (std::int64_t o = 0; o < win.outputs(); ++o) {
    win.cells(o, cells.data());
    const std::int64_t at = pick(operand, cells, regions);
    if (at < 0) continue;
    const Tensor args[] = {scalar_at(y, at), scalar_at(source, o)};
    const Tensor r = checked(regions.call(1, args), t, "scatter");
    std::memcpy(mutable_data<char>(y) + std::size_t(at) * w, r.raw_data(), w);
  }
  return {y};
}

// No derivative rules: with an add scatter region the op is linear in source and
// init, but rebuilding it (its JVP) or finding each window's pick (its VJP) needs
// the select region's comparison direction, and a rule sees only that the region
// is a `compare`. Max pooling's gradient does not need it: reduce_window's rules
// pick the cells themselves (reduce_window_rules.cpp).
std::vector<Tensor> refuse(const Rule&) {
  refuse_rule("select_and_scatter",
              "has no derivative rules: they need the select region's comparison direction, which rules cannot see");
}

const OpDef& select_and_scatter_op =
    def_op("select_and_scatter")
        .inputs(3)
        .shape_rule(select_and_scatter_rule)
        .region_kernel(2, select_and_scatter_kernel)
        .jvp(refuse)
        .vjp(refuse)
        .stablehlo({"stablehlo.select_and_scatter",
                    {StableHloAttr("window_dimensions", Kind::i64_array).optional(),
                     StableHloAttr("window_strides", Kind::i64_array).optional(),
                     StableHloAttr("padding", Kind::i64_matrix).optional()},
                    ""})
        .cpp([](CppOp& op) {
          const WindowSpec w = read_window(kName, op.attrs(), op.operand_type(0).shape.size());
          return cpp_call("tl::lax::select_and_scatter", op,
                          {cpp_ints(w.dims), cpp_ints(w.strides), cpp_ints(w.pad_lo), cpp_ints(w.pad_hi),
                           op.lambda(0), op.lambda(1)});
        });

}  // namespace
}  // namespace tlaloc::detail
