#include "ops/window.hpp"

#include "core/check.hpp"
#include "core/tensor_impl.hpp"

namespace tlaloc::detail {
namespace {

using I64s = std::vector<std::int64_t>;

I64s ints_or(const Attrs& attrs, std::string_view key, std::size_t rank, std::int64_t fill) {
  return attrs.has(key) ? attrs.get<I64s>(key) : I64s(rank, fill);
}

std::int64_t dilated(std::int64_t size, std::int64_t dilation) {
  return size == 0 ? 0 : (size - 1) * dilation + 1;
}

}  // namespace

WindowSpec read_window(std::string_view op, const Attrs& attrs, std::size_t rank) {
  WindowSpec w;
  w.dims = ints_or(attrs, "window_dimensions", rank, 1);
  w.strides = ints_or(attrs, "window_strides", rank, 1);
  w.base_dilations = ints_or(attrs, "base_dilations", rank, 1);
  w.window_dilations = ints_or(attrs, "window_dilations", rank, 1);
  const I64s pad = ints_or(attrs, "padding", 2 * rank, 0);
  for (const I64s* v : {&w.dims, &w.strides, &w.base_dilations, &w.window_dilations}) {
    if (v->size() != rank)
      fail<ShapeError>(op, "needs {} window sizes, strides and dilations for rank {}, got {}", rank, rank,
                       *v);
    for (std::int64_t x : *v)
      if (x < 1) fail<ValueError>(op, "window sizes, strides and dilations must be >= 1, got {}", *v);
  }
  if (pad.size() != 2 * rank) fail<ShapeError>(op, "padding must be {} x 2, got {} values", rank, pad.size());
  for (std::size_t d = 0; d < rank; ++d) {
    w.pad_lo.push_back(pad[2 * d]);
    w.pad_hi.push_back(pad[2 * d + 1]);
  }
  return w;
}

Shape window_counts(const Shape& in, const WindowSpec& w) {
  Shape out;
  for (std::size_t d = 0; d < in.size(); ++d) {
    const std::int64_t padded = w.pad_lo[d] + dilated(in[d], w.base_dilations[d]) + w.pad_hi[d];
    const std::int64_t window = dilated(w.dims[d], w.window_dilations[d]);
    out.push_back(padded <= 0 || window > padded ? 0 : (padded - window) / w.strides[d] + 1);
  }
  return out;
}

WindowCells::WindowCells(const Shape& in, const WindowSpec& w)
    : in_(in), counts_(window_counts(in, w)), strides_in_(in.size(), 1), w_(w) {
  for (std::size_t d = in.size(); d-- > 1;) strides_in_[d - 1] = strides_in_[d] * in[d];
  outputs_ = numel_of(counts_);
  for (std::int64_t k : w.dims) cells_ *= k;
}

void WindowCells::cells(std::int64_t o, std::int64_t* out) const {
  const std::size_t rank = in_.size();
  I64s start(rank), pos(rank, 0);
  for (std::size_t d = rank; d-- > 0;) {
    start[d] = (o % counts_[d]) * w_.strides[d] - w_.pad_lo[d];
    o /= counts_[d];
  }
  for (std::int64_t c = 0; c < cells_; ++c) {
    std::int64_t flat = 0;
    for (std::size_t d = 0; d < rank && flat >= 0; ++d) {
      // A position in the base-dilated input: real elements sit at multiples of the dilation.
      const std::int64_t q = start[d] + pos[d] * w_.window_dilations[d];
      if (q < 0 || q % w_.base_dilations[d] != 0 || q / w_.base_dilations[d] >= in_[d])
        flat = -1;
      else
        flat += (q / w_.base_dilations[d]) * strides_in_[d];
    }
    out[c] = flat;
    for (std::size_t d = rank; d-- > 0;) {
      if (++pos[d] < w_.dims[d]) break;
      pos[d] = 0;
    }
  }
}

}  // namespace tlaloc::detail
