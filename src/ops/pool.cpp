// 2-D pooling: the primitive "pool" (StableHLO's reduce_window with a max or sum
// body; its init value and padding value are the reduction's identity, -inf /
// lowest for max and 0 for sum), and max_pool2d / avg_pool2d. The host kernel
// handles windows over the last two axes of a rank-4 tensor; the lowering emits
// stablehlo.reduce_window, whose one-op fast path shares the accumulators.
#include <algorithm>
#include <array>
#include <string>
#include <type_traits>

#include "core/check.hpp"
#include "core/convert.hpp"
#include "core/dispatch_type.hpp"
#include "core/parallel.hpp"
#include "core/reduce_kernels.hpp"
#include "core/tensor_impl.hpp"
#include "ir/builder.hpp"
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
        .lower(lower_pool);

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
