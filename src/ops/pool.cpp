// 2-D pooling: the primitive "pool" (StableHLO's reduce_window with a max or sum
// body; its init value and padding value are the reduction's identity, -inf /
// lowest for max and 0 for sum), and max_pool2d / avg_pool2d. The host kernel
// handles windows over the last two axes of a rank-4 tensor; the lowering emits
// stablehlo.reduce_window, whose one-op fast path shares the accumulators.
#include <algorithm>
#include <array>
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
#include "ops/rule.hpp"
#include "ops/window.hpp"
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
Tensor sum_pool_vjp(const Tensor& g, const Tensor& x, const Attrs& attrs) {
  const auto& window = attrs.get<I64s>("window_dimensions");
  const auto& stride = attrs.get<I64s>("window_strides");
  const auto& lo = attrs.get<I64s>("padding_low");
  const auto& hi = attrs.get<I64s>("padding_high");
  const std::int64_t c = x.shape()[1];
  const Attrs conv{{"window_strides", I64s{stride[2], stride[3]}}, {"padding_low", I64s{lo[2], lo[3]}},
                   {"padding_high", I64s{hi[2], hi[3]}},         {"lhs_dilation", I64s{1, 1}},
                   {"rhs_dilation", I64s{1, 1}},                 {"feature_group_count", c}};
  return detail::conv2d_input_grad(g, ones({c, 1, window[2], window[3]}, g.dtype()), x.shape(), conv);
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

PoolTaps pool_taps(const detail::Rule& r) {
  const Attrs& a = r.attrs();
  return {a.get<I64s>("window_dimensions"), a.get<I64s>("window_strides"), a.get<I64s>("padding_low"),
          a.get<I64s>("padding_high"),      r.in(0).shape(),                 r.out(0).shape()};
}

std::vector<Tensor> pool_jvp(const detail::Rule& r) {
  if (r.attr<std::string>("reduction") == "sum") return detail::linear_jvp({0})(r);
  const PoolTaps p = pool_taps(r);
  const std::vector<Tensor> hits = p.first_max(r.in(0), r.out(0));
  const Tensor tp = p.padded(r.tangent(0), 0.0);
  Tensor t;
  std::size_t k = 0;
  for (std::int64_t i = 0; i < p.window[2]; ++i)
    for (std::int64_t j = 0; j < p.window[3]; ++j)
      t = detail::add_tangents(t, where(hits[k++], p.tap(tp, i, j), 0.0));
  return {t};
}

std::vector<Tensor> pool_vjp(const detail::Rule& r) {
  if (r.attr<std::string>("reduction") == "sum") return {sum_pool_vjp(r.cotangent(), r.in(0), r.attrs())};
  const PoolTaps p = pool_taps(r);
  const std::vector<Tensor> hits = p.first_max(r.in(0), r.out(0));
  Tensor g;
  std::size_t k = 0;
  for (std::int64_t i = 0; i < p.window[2]; ++i)
    for (std::int64_t j = 0; j < p.window[3]; ++j)
      g = detail::add_tangents(g, p.untap(where(hits[k++], r.cotangent(), 0.0), i, j));
  return {g};
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
        .vjp(pool_vjp);

// Validates with the public name and builds the canonical attributes.
Attrs pool_attrs(std::string_view op, const Tensor& x, const Pool2dOptions& opt, const char* reduction) {
  if (x.rank() != 4) fail<ShapeError>(op, "needs x [N, C, H, W], got {}", shape_string(x.shape()));
  I64s window{1, 1}, stride{1, 1}, pad{0, 0};
  for (std::size_t d = 0; d < 2; ++d) {
    const std::int64_t k = opt.kernel[d], s = opt.stride[d] == 0 ? k : opt.stride[d], p = opt.padding[d];
    if (k < 1 || s < 1 || p < 0 || 2 * p > k)
      fail<ValueError>(op,
                       "needs kernel >= 1, stride >= 0 and 0 <= padding <= kernel / 2, got kernel {}, "
                       "stride {}, padding {}",
                       opt.kernel, opt.stride, opt.padding);
    if (x.shape()[d + 2] + 2 * p < k)
      fail<ShapeError>(op, "kernel {} does not fit x {} with padding {}", opt.kernel, shape_string(x.shape()),
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

}  // namespace

Tensor max_pool2d(const Tensor& x, const Pool2dOptions& opt) {
  return detail::call1(pool_op, {x}, pool_attrs("max_pool2d", x, opt, "max"));
}

// Padding counts in the divisor (PyTorch's count_include_pad=True); integer
// inputs are averaged in f32.
Tensor avg_pool2d(const Tensor& x, const Pool2dOptions& opt) {
  const Tensor xf = is_floating(x.dtype()) ? x : x.astype(DType::f32);
  const Attrs attrs = pool_attrs("avg_pool2d", xf, opt, "sum");
  const double count = double(opt.kernel[0] * opt.kernel[1]);
  return detail::call1(pool_op, {xf}, attrs) / count;
}

}  // namespace tlaloc
