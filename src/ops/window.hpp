// Windows over a tensor as StableHLO's reduce_window and select_and_scatter see
// them: dilated by base_dilations, padded, strided and dilated windows. Shared by
// those ops and by the pooling kernels, so their accumulators agree bit for bit.
#pragma once

#include <cstdint>
#include <string_view>
#include <type_traits>
#include <vector>

#include "core/convert.hpp"
#include "core/reduce_kernels.hpp"
#include "ir/op.hpp"

namespace tlaloc::detail {

struct WindowSpec {
  std::vector<std::int64_t> dims, strides, base_dilations, window_dilations, pad_lo, pad_hi;
};

// Reads the spec's attributes (absent ones take their defaults: strides and
// dilations 1, padding 0) and checks them against the rank.
WindowSpec read_window(std::string_view op, const Attrs& attrs, std::size_t rank);
// The number of windows along each axis (the spec's num_windows).
Shape window_counts(const Shape& in, const WindowSpec& w);

// For each output position in row-major order: the flat input index of each cell
// of its window (row-major), or -1 where the cell is padding or a dilation hole.
class WindowCells {
 public:
  WindowCells(const Shape& in, const WindowSpec& w);
  std::int64_t outputs() const { return outputs_; }
  std::int64_t size() const { return cells_; }  // cells per window
  // Fills `out` (size() entries) for output position o.
  void cells(std::int64_t o, std::int64_t* out) const;

 private:
  Shape in_, counts_, strides_in_;
  WindowSpec w_;
  std::int64_t outputs_ = 0, cells_ = 1;
};

// Accumulators of the windowed kernels. Integer sums and products wrap (two's
// complement); 16-bit floats accumulate in f32 and round once, as reductions do.
template <class T>
using WrapAcc =
    std::conditional_t<std::is_integral_v<T> && !std::is_same_v<T, bool>, std::uint64_t, compute_t<T>>;
template <class T>
struct WindowAcc {
  using Acc = WrapAcc<T>;
  static Acc load(T v) {
    if constexpr (std::is_same_v<Acc, std::uint64_t>)
      return Acc(std::int64_t(v));
    else
      return Acc(v);
  }
  static T store(Acc a) {
    if constexpr (std::is_same_v<Acc, std::uint64_t>)
      return T(std::int64_t(a));
    else
      return convert_value<T>(a);
  }
};
template <class T>
struct WrapSum : WindowAcc<T> {
  using Acc = WrapAcc<T>;
  static Acc init() { return Acc(0); }
  static Acc combine(Acc a, Acc b) {
    if constexpr (std::is_same_v<T, bool>)
      return a || b;
    else
      return a + b;
  }
};
template <class T>
struct WrapProd : WindowAcc<T> {
  using Acc = WrapAcc<T>;
  static Acc init() { return Acc(1); }
  static Acc combine(Acc a, Acc b) {
    if constexpr (std::is_same_v<T, bool>)
      return a && b;
    else
      return a * b;
  }
};
// NaN wins, as in max() and min().
template <class T>
struct Max {
  using Acc = compute_t<T>;
  static Acc init() { return MaxOp<Acc>::init(); }
  static Acc combine(Acc a, Acc b) { return MaxOp<Acc>::combine(a, b); }
  static Acc load(T v) { return Acc(v); }
  static T store(Acc a) { return convert_value<T>(a); }
};
template <class T>
struct Min {
  using Acc = compute_t<T>;
  static Acc init() { return MinOp<Acc>::init(); }
  static Acc combine(Acc a, Acc b) { return MinOp<Acc>::combine(a, b); }
  static Acc load(T v) { return Acc(v); }
  static T store(Acc a) { return convert_value<T>(a); }
};

}  // namespace tlaloc::detail
