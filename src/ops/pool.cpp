// 2-D pooling: the primitive "pool" (StableHLO's reduce_window with a max or sum
// body; its init value and padding value are the reduction's identity, -inf /
// lowest for max and 0 for sum), max pooling's input cotangent "max_pool_grad",
// and max_pool2d / avg_pool2d. The host kernel
// handles windows over the last two axes of a rank-4 tensor; the lowering emits
// stablehlo.reduce_window, whose one-op fast path shares the accumulators.
#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>

#include "core/check.hpp"
#include "core/convert.hpp"
#include "core/dispatch_type.hpp"
#include "core/parallel.hpp"
#include "core/reduce_kernels.hpp"
#include "core/tensor_impl.hpp"
#include "ir/builder.hpp"
#include "ops/conv_grad.hpp"
#include "ops/cpp_spelling.hpp"
#include "ops/like.hpp"
#include "ops/rule.hpp"
#include "ops/untyped_calls.hpp"
#include "ops/window.hpp"
#include "tlaloc/derivatives.hpp"
#include "tlaloc/lax.hpp"
#include "tlaloc/ops.hpp"

namespace tlaloc {
namespace {

using detail::Attrs;
using detail::fail;
using detail::TensorType;
using I64s = std::vector<std::int64_t>;

struct PoolGeom {
  std::int64_t planes = 0;                                             // N * C
  std::array<std::int64_t, 2> in{}, window{}, stride{}, pad{}, out{};  // pad: the low side
};

// Checks the canonical attributes and returns the geometry of the two pooled axes.
PoolGeom pool_geometry(const Shape& s, const Attrs& attrs) {
  constexpr std::string_view op = "pool";
  const auto& window = attrs.get<I64s>("window_dimensions");
  const auto& stride = attrs.get<I64s>("window_strides");
  const auto& lo = attrs.get<I64s>("padding_low");
  const auto& hi = attrs.get<I64s>("padding_high");
  const std::string& reduction = attrs.get<std::string>("reduction");
  if (reduction != "max" && reduction != "sum") fail<ValueError>(op, "unknown reduction '{}'", reduction);
  const auto r = s.size();
  if (r != 4 || window.size() != r || stride.size() != r || lo.size() != r || hi.size() != r)
    fail<ShapeError>(op,
                     "needs a rank-4 input and 4 window sizes, strides and paddings, got {}, {}, {}, {}, {}",
                     shape_string(s), window, stride, lo, hi);
  if (window[0] != 1 || window[1] != 1 || stride[0] != 1 || stride[1] != 1 || lo[0] != 0 || lo[1] != 0 ||
      hi[0] != 0 || hi[1] != 0)
    fail<ValueError>(op, "windows over the first two axes are not supported (window {}, strides {})", window,
                     stride);
  PoolGeom g;
  g.planes = s[0] * s[1];
  for (std::size_t d = 0; d < 2; ++d) {
    const std::size_t a = d + 2;
    if (window[a] < 1 || stride[a] < 1 || lo[a] < 0 || hi[a] < 0)
      fail<ValueError>(op, "needs windows and strides >= 1 and paddings >= 0, got {}, {}, {}, {}", window,
                       stride, lo, hi);
    const std::int64_t padded = s[a] + lo[a] + hi[a];
    if (padded < window[a])
      fail<ShapeError>(op, "window {} does not fit the padded input {} (padding {} and {})", window,
                       shape_string(s), lo, hi);
    g.in[d] = s[a];
    g.window[d] = window[a];
    g.stride[d] = stride[a];
    g.pad[d] = lo[a];
    g.out[d] = (padded - window[a]) / stride[a] + 1;
  }
  return g;
}

using detail::Max;
using detail::WrapSum;

// Each output is its window clipped to the input: padding holds the identity
// and contributes nothing.
template <class R, class T>
void pool_host(const T* x, T* out, const PoolGeom& g) {
  const std::int64_t oh = g.out[0], ow = g.out[1], h = g.in[0], w = g.in[1];
  const std::int64_t grain =
      std::max<std::int64_t>(1, 32768 / std::max<std::int64_t>(ow * g.window[0] * g.window[1], 1));
  detail::parallel_for(g.planes * oh, grain, [&](std::int64_t b, std::int64_t e) {
    for (std::int64_t r = b; r < e; ++r) {
      const T* src = x + (r / oh) * h * w;
      const std::int64_t y0 = (r % oh) * g.stride[0] - g.pad[0];
      const std::int64_t ya = std::max<std::int64_t>(y0, 0), yb = std::min(y0 + g.window[0], h);
      for (std::int64_t ox = 0; ox < ow; ++ox) {
        const std::int64_t x0 = ox * g.stride[1] - g.pad[1];
        const std::int64_t xa = std::max<std::int64_t>(x0, 0), xb = std::min(x0 + g.window[1], w);
        typename R::Acc acc = R::init();
        for (std::int64_t y = ya; y < yb; ++y)
          for (std::int64_t i = xa; i < xb; ++i) acc = R::combine(acc, R::load(src[y * w + i]));
        out[r * ow + ox] = R::store(acc);
      }
    }
  });
}

// stablehlo.reduce_window with the reduction's identity as init and padding value.
std::vector<Tensor> lower_pool(std::span<const Tensor> in, const Attrs& attrs) {
  ir::Builder* b = ir::current_builder();
  if (b == nullptr) fail("pool", "is lowered only while tracing");
  const bool is_max = attrs.get<std::string>("reduction") == "max";
  const DType t = in[0].dtype();
  Tensor init = detail::empty({}, t);
  TLALOC_SWITCH_ALL(t, "pool", {
    *detail::mutable_data<T>(init) =
        is_max ? Max<T>::store(Max<T>::init()) : WrapSum<T>::store(WrapSum<T>::init());
  })
  const TensorType scalars[] = {{t, {}}, {t, {}}};
  const detail::OpDef& body = *detail::find_op(is_max ? "maximum" : "add");
  std::vector<ir::Region> regions;
  regions.push_back(b->region(scalars, [&](std::span<const Tensor> args) {
    return std::vector<Tensor>{detail::call1(body, {args[0], args[1]})};
  }));
  const auto& lo = attrs.get<I64s>("padding_low");
  const auto& hi = attrs.get<I64s>("padding_high");
  I64s padding;
  for (std::size_t d = 0; d < lo.size(); ++d) padding.insert(padding.end(), {lo[d], hi[d]});
  const Attrs window{{"window_dimensions", attrs.get<I64s>("window_dimensions")},
                     {"window_strides", attrs.get<I64s>("window_strides")},
                     {"padding", padding}};
  const detail::OpDef& op = *detail::find_op("reduce_window");
  const Tensor operands[] = {in[0], init};
  const TensorType types[] = {detail::type_of(in[0]), detail::type_of(init)};
  return b->record(op, operands, window, op.infer(types, window), std::move(regions));
}

// ---- derivatives ------------------------------------------------------------------
// Sum pooling is linear, and is the depthwise convolution of x with a kernel of
// ones: its transpose is conv2d's input cotangent.
Tensor sum_pool_vjp(const Tensor& g, const Shape& x, const Attrs& attrs) {
  const auto& window = attrs.get<I64s>("window_dimensions");
  const auto& stride = attrs.get<I64s>("window_strides");
  const auto& lo = attrs.get<I64s>("padding_low");
  const auto& hi = attrs.get<I64s>("padding_high");
  const std::int64_t c = x[1];
  const Attrs conv{{"window_strides", I64s{stride[2], stride[3]}}, {"padding_low", I64s{lo[2], lo[3]}},
                   {"padding_high", I64s{hi[2], hi[3]}},         {"lhs_dilation", I64s{1, 1}},
                   {"rhs_dilation", I64s{1, 1}},                 {"feature_group_count", c}};
  return detail::conv2d_input_grad(g, ones({c, 1, window[2], window[3]}, g.dtype()), x, conv);
}

// Max pooling routes each window's derivative to its maximum; on ties, to the first
// maximal element of the window in row-major order (as XLA's select_and_scatter
// with `ge`), not shared as reduce_max shares it. A window holding NaN passes
// nothing. Written per window cell (tap) with pad and strided slices, so that the
// rules are differentiable again: tap (i, j) of every window is a strided slice
// of x padded with -inf.
struct PoolTaps {
  I64s window, stride, lo, hi;
  Shape in, out;
  // x (or a tangent) padded with `fill`, and the slice of tap (i, j).
  Tensor padded(const Tensor& t, double fill) const {
    static const detail::OpDef& pad = *detail::find_op("pad");
    return detail::call1(pad, {t, scalar_tensor(fill, t.dtype())},
                         {{"edge_padding_low", lo}, {"edge_padding_high", hi}, {"interior_padding", I64s(4, 0)}});
  }
  Tensor tap(const Tensor& padded_t, std::int64_t i, std::int64_t j) const {
    return slice(padded_t, {0, 0, i, j},
                 {in[0], in[1], i + (out[2] - 1) * stride[2] + 1, j + (out[3] - 1) * stride[3] + 1},
                 {1, 1, stride[2], stride[3]});
  }
  // The transpose of tap(pad(., lo, hi), i, j): t spread back onto x's shape, with
  // stride - 1 zeros between its elements (negative padding crops x's padding).
  Tensor untap(const Tensor& t, std::int64_t i, std::int64_t j) const {
    static const detail::OpDef& pad = *detail::find_op("pad");
    I64s low{0, 0, i - lo[2], j - lo[3]}, high(4, 0);
    for (std::size_t d = 2; d < 4; ++d) high[d] = in[d] - low[d] - ((out[d] - 1) * stride[d] + 1);
    return detail::call1(pad, {t, scalar_tensor(0, t.dtype())},
                         {{"edge_padding_low", low},
                          {"edge_padding_high", high},
                          {"interior_padding", I64s{0, 0, stride[2] - 1, stride[3] - 1}}});
  }
  // For each tap, whether it is the window's first maximum (bool, the result's shape).
  std::vector<Tensor> first_max(const Tensor& x, const Tensor& y) const {
    const Tensor xp = padded(x, -std::numeric_limits<double>::infinity());
    std::vector<Tensor> hits;
    Tensor taken;
    for (std::int64_t i = 0; i < window[2]; ++i)
      for (std::int64_t j = 0; j < window[3]; ++j) {
        Tensor hit = tap(xp, i, j) == y;
        if (taken.defined()) hit = hit & !taken;
        taken = taken.defined() ? (taken | hit) : hit;
        hits.push_back(hit);
      }
    return hits;
  }
};

PoolTaps pool_taps(const Attrs& a, const Shape& in, const Shape& out) {
  return {a.get<I64s>("window_dimensions"), a.get<I64s>("window_strides"), a.get<I64s>("padding_low"),
          a.get<I64s>("padding_high"), in, out};
}

// t (x's shape) read at each window's first maximum: max pooling's tangent.
Tensor route_to_windows(const PoolTaps& p, const Tensor& x, const Tensor& y, const Tensor& t) {
  const std::vector<Tensor> hits = p.first_max(x, y);
  const Tensor tp = p.padded(t, 0.0);
  Tensor out;
  std::size_t k = 0;
  for (std::int64_t i = 0; i < p.window[2]; ++i)
    for (std::int64_t j = 0; j < p.window[3]; ++j)
      out = detail::add_tangents(out, where(hits[k++], p.tap(tp, i, j), 0.0));
  return out;
}

// The transpose: each window's g sent back to its first maximum, the taps' parts
// added in row-major tap order. What max_pool_grad computes, in ops that lower.
Tensor route_to_inputs(const PoolTaps& p, const Tensor& x, const Tensor& y, const Tensor& g) {
  const std::vector<Tensor> hits = p.first_max(x, y);
  Tensor out;
  std::size_t k = 0;
  for (std::int64_t i = 0; i < p.window[2]; ++i)
    for (std::int64_t j = 0; j < p.window[3]; ++j)
      out = detail::add_tangents(out, p.untap(where(hits[k++], g, 0.0), i, j));
  return out;
}

// ---- max_pool_grad: max pooling's input cotangent as one op ----------------------
// Operands x, y = pool(x), g (y's cotangent); the pool's attributes. The kernel
// computes route_to_inputs directly: per window the first tap equal to y (padding
// reads -inf), then per input element the sum, in tap order, of the windows' g it
// is the first maximum of, with the decomposition's +0 for the other taps (so that
// signed zeros come out the same): the lowered program gives the same bits.

// hit ? v : +0, without a branch: the hits follow the data, and a branch on them
// mispredicts a quarter of the time or more.
template <class T>
T keep_if(bool hit, T v) {
  using U = std::conditional_t<sizeof(T) == 8, std::uint64_t, std::conditional_t<sizeof(T) == 4, std::uint32_t, std::uint16_t>>;
  static_assert(sizeof(U) == sizeof(T));
  U bits;
  std::memcpy(&bits, static_cast<const void*>(&v), sizeof(T));
  bits = U(bits & U(U(0) - U(hit)));
  std::memcpy(static_cast<void*>(&v), &bits, sizeof(T));
  return v;
}

// For each window, the index of its first maximum's tap, or -1.
template <class T>
std::vector<std::int32_t> first_max_taps(const T* x, const T* y, const PoolGeom& g) {
  const std::int64_t oh = g.out[0], ow = g.out[1], h = g.in[0], w = g.in[1];
  std::vector<std::int32_t> first(std::size_t(g.planes * oh * ow));
  using C = detail::compute_t<T>;
  const C pad = -std::numeric_limits<C>::infinity();
  detail::parallel_for(g.planes * oh, std::max<std::int64_t>(1, 4096 / std::max<std::int64_t>(ow, 1)),
                       [&](std::int64_t b, std::int64_t e) {
    for (std::int64_t r = b; r < e; ++r) {
      const T* src = x + (r / oh) * h * w;
      const std::int64_t y0 = (r % oh) * g.stride[0] - g.pad[0];
      for (std::int64_t ox = 0; ox < ow; ++ox) {
        const std::int64_t x0 = ox * g.stride[1] - g.pad[1];
        const C m = C(y[r * ow + ox]);
        // Taps from the last to the first, each equal one taking the place: the
        // first equal tap remains, with selects rather than branches.
        std::int32_t hit = -1;
        const bool inside = y0 >= 0 && y0 + g.window[0] <= h && x0 >= 0 && x0 + g.window[1] <= w;
        for (std::int64_t i = g.window[0]; i-- > 0;)
          for (std::int64_t j = g.window[1]; j-- > 0;) {
            const std::int64_t yy = y0 + i, xx = x0 + j;
            C v;
            if (inside)  // the usual case, and the same for a whole row of windows
              v = C(src[yy * w + xx]);
            else
              v = yy >= 0 && yy < h && xx >= 0 && xx < w ? C(src[yy * w + xx]) : pad;
            const std::int32_t mask = -std::int32_t(v == m);  // a mask, so that no branch follows the data
            hit = (std::int32_t(i * g.window[1] + j) & mask) | (hit & ~mask);
          }
        first[std::size_t(r * ow + ox)] = hit;
      }
    }
  });
  return first;
}

// Along one axis: for input index v and tap t, the window that has v at tap t, or -1.
std::vector<std::int64_t> window_at(std::int64_t in, std::int64_t taps, std::int64_t stride, std::int64_t pad,
                                    std::int64_t out) {
  std::vector<std::int64_t> at(std::size_t(in * taps), -1);
  for (std::int64_t o = 0; o < out; ++o)
    for (std::int64_t t = 0; t < taps; ++t) {
      const std::int64_t v = o * stride - pad + t;
      if (v >= 0 && v < in) at[std::size_t(v * taps + t)] = o;
    }
  return at;
}

// Windows that do not overlap (stride >= window): each element is at one tap of at
// most one window, so the sum of the taps' parts is that part plus zeros (which
// turns -0 into +0 when there are other taps).
template <class T>
void max_pool_grad_disjoint(const std::int32_t* first, const T* g, T* dx, const PoolGeom& geo,
                            const std::vector<std::int64_t>& rows, const std::vector<std::int64_t>& cols) {
  const std::int64_t oh = geo.out[0], ow = geo.out[1], h = geo.in[0], w = geo.in[1];
  const std::int64_t kh = geo.window[0], kw = geo.window[1];
  // Per input row / column: its window and tap, or -1.
  std::vector<std::int64_t> rwin(std::size_t(h), -1), rtap(std::size_t(h), 0), cwin(std::size_t(w), -1),
      ctap(std::size_t(w), 0);
  for (std::int64_t v = 0; v < h; ++v)
    for (std::int64_t t = 0; t < kh; ++t)
      if (rows[std::size_t(v * kh + t)] >= 0) rwin[std::size_t(v)] = rows[std::size_t(v * kh + t)], rtap[std::size_t(v)] = t;
  for (std::int64_t v = 0; v < w; ++v)
    for (std::int64_t t = 0; t < kw; ++t)
      if (cols[std::size_t(v * kw + t)] >= 0) cwin[std::size_t(v)] = cols[std::size_t(v * kw + t)], ctap[std::size_t(v)] = t;
  using C = detail::compute_t<T>;
  const C zero = kh * kw > 1 ? C(0) : C(-0.0);  // x + (-0) is x, even for x = -0
  detail::parallel_for(geo.planes * h, std::max<std::int64_t>(1, 16384 / std::max<std::int64_t>(w, 1)),
                       [&](std::int64_t b, std::int64_t e) {
    for (std::int64_t r = b; r < e; ++r) {
      const std::int64_t plane = r / h, iy = r % h, oy = rwin[std::size_t(iy)];
      T* out = dx + r * w;
      if (oy < 0) {
        std::fill(out, out + w, T(0));
        continue;
      }
      const std::int32_t* fp = first + (plane * oh + oy) * ow;
      const T* gp = g + (plane * oh + oy) * ow;
      const std::int64_t tap_row = rtap[std::size_t(iy)] * kw;
      for (std::int64_t ix = 0; ix < w; ++ix) {
        const std::int64_t ox = cwin[std::size_t(ix)], at = ox < 0 ? 0 : ox;
        const bool hit = (ox >= 0) & (fp[at] == std::int32_t(tap_row + ctap[std::size_t(ix)]));
        out[ix] = keep_if(hit, detail::convert_value<T>(C(gp[at]) + zero));
      }
    }
  });
}

template <class T>
void max_pool_grad_host(const T* x, const T* y, const T* g, T* dx, const PoolGeom& geo) {
  const std::vector<std::int32_t> first = first_max_taps(x, y, geo);
  const std::int64_t oh = geo.out[0], ow = geo.out[1], h = geo.in[0], w = geo.in[1];
  const std::int64_t kh = geo.window[0], kw = geo.window[1];
  const std::vector<std::int64_t> rows = window_at(h, kh, geo.stride[0], geo.pad[0], oh),
                                  cols = window_at(w, kw, geo.stride[1], geo.pad[1], ow);
  if (geo.stride[0] >= kh && geo.stride[1] >= kw) return max_pool_grad_disjoint(first.data(), g, dx, geo, rows, cols);
  using C = detail::compute_t<T>;
  detail::parallel_for(geo.planes * h, std::max<std::int64_t>(1, 4096 / std::max<std::int64_t>(w * kh * kw, 1)),
                       [&](std::int64_t b, std::int64_t e) {
    for (std::int64_t r = b; r < e; ++r) {
      const std::int64_t plane = r / h, iy = r % h;
      const std::int32_t* fp = first.data() + plane * oh * ow;
      const T* gp = g + plane * oh * ow;
      for (std::int64_t ix = 0; ix < w; ++ix) {
        T acc = T(0);
        for (std::int64_t i = 0; i < kh; ++i)
          for (std::int64_t j = 0; j < kw; ++j) {
            const std::int64_t oy = rows[std::size_t(iy * kh + i)], ox = cols[std::size_t(ix * kw + j)];
            const std::int64_t at = oy < 0 || ox < 0 ? 0 : oy * ow + ox;
            const bool hit = (oy >= 0) & (ox >= 0) & (fp[at] == std::int32_t(i * kw + j));
            const T part = keep_if(hit, gp[at]);
            acc = i == 0 && j == 0 ? part : detail::convert_value<T>(C(acc) + C(part));
          }
        dx[r * w + ix] = acc;
      }
    }
  });
}

// The window attributes after the operands; `reduction` first for pool itself.
std::vector<std::string> window_args(const Attrs& a) {
  std::vector<std::string> args;
  for (const char* name : {"window_dimensions", "window_strides", "padding_low", "padding_high"})
    args.push_back(detail::cpp_ints(a.get<I64s>(name)));
  return args;
}

Attrs window_attrs(const std::string& reduction, const I64s& window_dimensions, const I64s& window_strides,
                   const I64s& padding_low, const I64s& padding_high) {
  return {{"window_dimensions", window_dimensions},
          {"window_strides", window_strides},
          {"padding_low", padding_low},
          {"padding_high", padding_high},
          {"reduction", reduction}};
}

const detail::OpDef& max_pool_grad_op =
    detail::def_op("max_pool_grad")
        .inputs(3)
        .shape_rule([](std::span<const TensorType> in, const Attrs& attrs) {
          const PoolGeom g = pool_geometry(in[0].shape, attrs);
          const Shape& s = in[0].shape;
          const Shape out{s[0], s[1], g.out[0], g.out[1]};
          if (attrs.get<std::string>("reduction") != "max")
            fail<ValueError>("max_pool_grad", "needs the attributes of a max pool, not a {} pool",
                             attrs.get<std::string>("reduction"));
          if (!is_floating(in[0].dtype) || in[1].dtype != in[0].dtype || in[2].dtype != in[0].dtype)
            fail<DTypeError>("max_pool_grad", "needs x, y and g of one floating dtype, got {}, {} and {}",
                             in[0].dtype, in[1].dtype, in[2].dtype);
          if (in[1].shape != out || in[2].shape != out)
            fail<ShapeError>("max_pool_grad", "x {} pools to {}, but y is {} and g is {}", shape_string(s),
                             shape_string(out), shape_string(in[1].shape), shape_string(in[2].shape));
          return std::vector<TensorType>{in[0]};
        })
        .kernel([](std::span<const Tensor> in, const Attrs& attrs, std::span<const TensorType> out) {
          const PoolGeom g = pool_geometry(in[0].shape(), attrs);
          Tensor dx = detail::empty(out[0].shape, out[0].dtype);
          TLALOC_SWITCH_FLOATING(in[0].dtype(), "max_pool_grad", {
            max_pool_grad_host<T>(in[0].data<T>(), in[1].data<T>(), in[2].data<T>(), detail::mutable_data<T>(dx), g);
          })
          return std::vector<Tensor>{dx};
        })
        .lower([](std::span<const Tensor> in, const Attrs& attrs) {
          const PoolTaps p = pool_taps(attrs, in[0].shape(), in[1].shape());
          return std::vector<Tensor>{route_to_inputs(p, in[0], in[1], in[2])};
        })
        // Linear in g; the routing is piecewise constant in x (and y), as the
        // comparisons that choose it are.
        .jvp(detail::linear_jvp({2}))
        .vjp([](const detail::Rule& r) {
          std::vector<Tensor> ct(3);
          if (r.wants(2)) {
            const PoolTaps p = pool_taps(r.attrs(), r.in(0).shape(), r.in(1).shape());
            ct[2] = route_to_windows(p, r.in(0), r.in(1), r.cotangent());
          }
          return ct;
        })
        .cpp([](detail::CppOp& op) { return detail::cpp_call("tl::lax::max_pool_grad", op, window_args(op.attrs())); });

std::vector<Tensor> pool_jvp(const detail::Rule& r) {
  if (r.attr<std::string>("reduction") == "sum") return detail::linear_jvp({0})(r);
  const PoolTaps p = pool_taps(r.attrs(), r.in(0).shape(), r.out(0).shape());
  return {route_to_windows(p, r.in(0), r.out(0), r.tangent(0))};
}

std::vector<Tensor> pool_vjp(const detail::Rule& r) {
  if (r.attr<std::string>("reduction") == "sum")
    return {sum_pool_vjp(r.cotangent(), r.in(0).shape(), r.attrs())};
  return {detail::call1(max_pool_grad_op, {r.in(0), r.out(0), r.cotangent()}, r.attrs())};
}

const detail::OpDef& pool_op =
    detail::def_op("pool")
        .inputs(1)
        .shape_rule([](std::span<const TensorType> in, const Attrs& attrs) {
          const PoolGeom g = pool_geometry(in[0].shape, attrs);
          const Shape& s = in[0].shape;
          return std::vector<TensorType>{{in[0].dtype, {s[0], s[1], g.out[0], g.out[1]}}};
        })
        .kernel([](std::span<const Tensor> in, const Attrs& attrs, std::span<const TensorType> out) {
          const PoolGeom g = pool_geometry(in[0].shape(), attrs);
          const bool is_max = attrs.get<std::string>("reduction") == "max";
          Tensor y = detail::empty(out[0].shape, out[0].dtype);
          TLALOC_SWITCH_ALL(in[0].dtype(), "pool", {
            if (is_max)
              pool_host<Max<T>>(in[0].data<T>(), detail::mutable_data<T>(y), g);
            else
              pool_host<WrapSum<T>>(in[0].data<T>(), detail::mutable_data<T>(y), g);
          })
          return std::vector<Tensor>{y};
        })
        .lower(lower_pool)
        .jvp(pool_jvp)
        .vjp(pool_vjp)
        .cpp([](detail::CppOp& op) {
          std::vector<std::string> args = window_args(op.attrs());
          args.insert(args.begin(), detail::cpp_string(op.attrs().get<std::string>("reduction")));
          return detail::cpp_call("tl::lax::pool", op, args);
        });

// Validates with the public name and builds the canonical attributes.
Attrs pool_attrs(std::string_view op, const Shape& x, const Pool2dOptions& opt, const char* reduction) {
  if (x.size() != 4) fail<ShapeError>(op, "needs x [N, C, H, W], got {}", shape_string(x));
  I64s window{1, 1}, stride{1, 1}, pad{0, 0};
  for (std::size_t d = 0; d < 2; ++d) {
    const std::int64_t k = opt.kernel[d], s = opt.stride[d] == 0 ? k : opt.stride[d], p = opt.padding[d];
    if (k < 1 || s < 1 || p < 0 || 2 * p > k)
      fail<ValueError>(op,
                       "needs kernel >= 1, stride >= 0 and 0 <= padding <= kernel / 2, got kernel {}, "
                       "stride {}, padding {}",
                       opt.kernel, opt.stride, opt.padding);
    if (x[d + 2] + 2 * p < k)
      fail<ShapeError>(op, "kernel {} does not fit x {} with padding {}", opt.kernel, shape_string(x),
                       opt.padding);
    window.push_back(k);
    stride.push_back(s);
    pad.push_back(p);
  }
  return {{"window_dimensions", window},
          {"window_strides", stride},
          {"padding_low", pad},
          {"padding_high", pad},
          {"reduction", std::string(reduction)}};
}

// A check that `t` has the pool's result shape for x of shape `x`.
void check_pooled(std::string_view fn, const Tensor& t, const Shape& x, const Attrs& attrs) {
  const PoolGeom geom = pool_geometry(x, attrs);
  const Shape y{x[0], x[1], geom.out[0], geom.out[1]};
  if (t.shape() != y)
    fail<ShapeError>(fn, "g is {}, but the pool of {} is {}", shape_string(t.shape()), shape_string(x),
                     shape_string(y));
}

}  // namespace

Tensor max_pool2d(const Tensor& x, const Pool2dOptions& opt) {
  if (detail::is_untyped(x)) return detail::record_max_pool2d(x, opt);
  return detail::call1(pool_op, {x}, pool_attrs("max_pool2d", x.shape(), opt, "max"));
}

// The engine's rules of max pooling, under the attributes max_pool2d makes.
Tensor derivatives::max_pool2d_backward(const Tensor& g, const Tensor& x, const Tensor& y, const Pool2dOptions& opt) {
  const Attrs attrs = pool_attrs("max_pool2d_backward", x.shape(), opt, "max");
  check_pooled("max_pool2d_backward", g, x.shape(), attrs);
  check_pooled("max_pool2d_backward", y, x.shape(), attrs);
  return detail::call1(max_pool_grad_op, {x, y, g}, attrs);
}
Tensor derivatives::max_pool2d_jvp(const Tensor& t, const Tensor& x, const Tensor& y, const Pool2dOptions& opt) {
  const Attrs attrs = pool_attrs("max_pool2d_jvp", x.shape(), opt, "max");
  check_pooled("max_pool2d_jvp", y, x.shape(), attrs);
  if (t.shape() != x.shape())
    fail<ShapeError>("max_pool2d_jvp", "t is {}, but x is {}", shape_string(t.shape()),
                     shape_string(x.shape()));
  return route_to_windows(pool_taps(attrs, x.shape(), y.shape()), x, y, t);
}

// Padding counts in the divisor (PyTorch's count_include_pad=True); integer
// inputs are averaged in f32.
Tensor avg_pool2d(const Tensor& x, const Pool2dOptions& opt) {
  if (detail::is_untyped(x)) return detail::record_avg_pool2d(x, opt);
  const Tensor xf = is_floating(x.dtype()) ? x : x.astype(DType::f32);
  const Attrs attrs = pool_attrs("avg_pool2d", xf.shape(), opt, "sum");
  const double count = double(opt.kernel[0] * opt.kernel[1]);
  return detail::call1(pool_op, {xf}, attrs) / count;
}

// avg_pool2d's steps undone, as the engine's rules do: the division's share (g times
// the count's reciprocal, in g's dtype), then the sum pool's transpose.
Tensor derivatives::avg_pool2d_backward(const Tensor& g, const Shape& shape, const Pool2dOptions& opt) {
  const Attrs attrs = pool_attrs("avg_pool2d_backward", shape, opt, "sum");
  check_pooled("avg_pool2d_backward", g, shape, attrs);
  const double count = double(opt.kernel[0] * opt.kernel[1]);
  return sum_pool_vjp(g * reciprocal(scalar_tensor(count, g.dtype())), shape, attrs);
}

// avg_pool2d's tangent, as the engine's rules give it: the sum pool's (it is linear),
// then the division's, t times the count's reciprocal in t's dtype.
Tensor derivatives::avg_pool2d_jvp(const Tensor& t, const Pool2dOptions& opt) {
  const Attrs attrs = pool_attrs("avg_pool2d_jvp", t.shape(), opt, "sum");
  const double count = double(opt.kernel[0] * opt.kernel[1]);
  return detail::call1(pool_op, {t}, attrs) * reciprocal(scalar_tensor(count, t.dtype()));
}

Tensor lax::pool(const Tensor& x, const std::string& reduction, const std::vector<std::int64_t>& window_dimensions,
               const std::vector<std::int64_t>& window_strides, const std::vector<std::int64_t>& padding_low,
               const std::vector<std::int64_t>& padding_high) {
  return detail::call1(pool_op, {x},
                       window_attrs(reduction, window_dimensions, window_strides, padding_low, padding_high));
}

Tensor lax::max_pool_grad(const Tensor& x, const Tensor& y, const Tensor& g,
                          const std::vector<std::int64_t>& window_dimensions,
                          const std::vector<std::int64_t>& window_strides,
                          const std::vector<std::int64_t>& padding_low, const std::vector<std::int64_t>& padding_high) {
  return detail::call1(max_pool_grad_op, {x, y, g},
                       window_attrs("max", window_dimensions, window_strides, padding_low, padding_high));
}

}  // namespace tlaloc
