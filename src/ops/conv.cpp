// 2-D convolution: the op "conv2d" (StableHLO's convolution with dimension
// numbers fixed to NCHW input, OIHW kernel, NCHW output and batch_group_count 1;
// it lowers to the general "convolution" of convolution.cpp, which also runs its
// 2-D cases on this kernel), the public conv2d on top of it, and conv_transpose2d as a
// composite (lhs dilation plus a flipped, channel-swapped kernel).
//
// Kernel: im2col + gemm (detail::gemm), one product per (chunk of batch items,
// group). Chunks go to the threads whole, each thread with its own buffers, so
// the products of a chunk run single-threaded; a single chunk threads inside (im2col,
// gemm and the final copy). Which of the two happens depends only on the shape and
// the thread count.
#include <algorithm>
#include <array>
#include <cstdint>
#include <limits>
#include <memory>
#include <vector>

#include <fmt/format.h>

#include "core/check.hpp"
#include "core/gemm.hpp"
#include "core/parallel.hpp"
#include "core/tensor_impl.hpp"
#include "ir/op.hpp"
#include "ops/conv_grad.hpp"
#include "ops/cpp_spelling.hpp"
#include "ops/like.hpp"
#include "ops/product_share.hpp"
#include "ops/rule.hpp"
#include "ops/untyped_calls.hpp"
#include "tlaloc/derivatives.hpp"
#include "tlaloc/lax.hpp"
#include "tlaloc/ops.hpp"

namespace tlaloc {
namespace {

using detail::Attrs;
using detail::fail;
using detail::TensorType;
using I2 = std::array<std::int64_t, 2>;
using I64s = std::vector<std::int64_t>;

// The canonical attributes of one convolution, per spatial dim (H, W).
struct ConvAttrs {
  I2 stride{1, 1}, pad_lo{0, 0}, pad_hi{0, 0}, lhs_dil{1, 1}, rhs_dil{1, 1};
  std::int64_t groups = 1;
};

Attrs to_attrs(const ConvAttrs& a) {
  auto v = [](const I2& p) { return I64s{p[0], p[1]}; };
  return {{"window_strides", v(a.stride)}, {"padding_low", v(a.pad_lo)},   {"padding_high", v(a.pad_hi)},
          {"lhs_dilation", v(a.lhs_dil)},  {"rhs_dilation", v(a.rhs_dil)}, {"feature_group_count", a.groups}};
}

// tl::conv2d's options as attributes, field by field: what the conv2d op records where
// the types are known at run time only (before that, the options are not checked).
Attrs options_attrs(const Conv2dOptions& o) {
  using detail::pair_attr;
  return {{"stride", pair_attr(o.stride)},
          {"padding", pair_attr(o.padding)},
          {"dilation", pair_attr(o.dilation)},
          {"groups", o.groups}};
}
I2 attr_pair(const Attrs& attrs, std::string_view name) { return detail::attr_pair("conv2d", attrs, name); }
Conv2dOptions options_of(const Attrs& a) {
  return {attr_pair(a, "stride"), attr_pair(a, "padding"), attr_pair(a, "dilation"),
          a.get<std::int64_t>("groups")};
}

// The convolution tl::conv2d's options make (not checked).
ConvAttrs conv_attrs_of(const Conv2dOptions& o) {
  ConvAttrs a;
  a.stride = o.stride;
  a.pad_lo = a.pad_hi = o.padding;
  a.rhs_dil = o.dilation;
  a.groups = o.groups;
  return a;
}

ConvAttrs from_attrs(const Attrs& attrs) {
  if (attrs.has("stride")) return conv_attrs_of(options_of(attrs));
  auto get = [&](std::string_view name) { return attr_pair(attrs, name); };
  ConvAttrs a;
  a.stride = get("window_strides");
  a.pad_lo = get("padding_low");
  a.pad_hi = get("padding_high");
  a.lhs_dil = get("lhs_dilation");
  a.rhs_dil = get("rhs_dilation");
  a.groups = attrs.get<std::int64_t>("feature_group_count");
  return a;
}

std::int64_t dilated(std::int64_t n, std::int64_t d) { return n == 0 ? 0 : (n - 1) * d + 1; }

// Everything the kernel needs: sizes of input, kernel and output.
struct ConvGeom {
  std::int64_t n, c, o, cg, og, groups;
  I2 in, k, out;
  ConvAttrs a;
};

void check_dtypes(std::string_view op, DType x, DType w) {
  if (!is_floating(x) || !is_floating(w))
    fail<DTypeError>(op, "needs floating-point x and w, got {} and {}", x, w);
}

// Validates shapes and attributes; errors name `op` (the public function or the primitive).
ConvGeom conv_geometry(std::string_view op, const Shape& xs, const Shape& ws, const ConvAttrs& a) {
  if (xs.size() != 4 || ws.size() != 4)
    fail<ShapeError>(op, "needs x [N, C, H, W] and w [O, C/groups, kH, kW], got x {} and w {}",
                     shape_string(xs), shape_string(ws));
  for (std::size_t d = 0; d < 2; ++d)
    if (a.stride[d] < 1 || a.lhs_dil[d] < 1 || a.rhs_dil[d] < 1)
      fail<ValueError>(op, "strides and dilations must be >= 1, got strides {} and dilations {} and {}",
                       a.stride, a.lhs_dil, a.rhs_dil);
  if (a.groups < 1) fail<ValueError>(op, "groups must be >= 1, got {}", a.groups);
  ConvGeom g{xs[0], xs[1], ws[0], ws[1], 0, a.groups, {xs[2], xs[3]}, {ws[2], ws[3]}, {0, 0}, a};
  if (g.c % g.groups != 0 || g.o % g.groups != 0 || g.cg * g.groups != g.c)
    fail<ShapeError>(op,
                     "x {} and w {} do not fit {} groups (need C = {} * w.shape[1] and O divisible by {})",
                     shape_string(xs), shape_string(ws), g.groups, g.groups, g.groups);
  g.og = g.o / g.groups;
  for (std::size_t d = 0; d < 2; ++d) {
    const std::int64_t padded = dilated(g.in[d], a.lhs_dil[d]) + a.pad_lo[d] + a.pad_hi[d];
    const std::int64_t window = dilated(g.k[d], a.rhs_dil[d]);
    if (g.k[d] < 1 || padded < window)
      fail<ShapeError>(op, "kernel {} (dilation {}) does not fit the padded input {} (padding {} and {})",
                       shape_string(ws), a.rhs_dil, shape_string(xs), a.pad_lo, a.pad_hi);
    g.out[d] = (padded - window) / a.stride[d] + 1;
  }
  return g;
}

// For each kernel tap and output position along one spatial dim: the input index
// read, or -1 for padding and lhs-dilation holes. Without lhs dilation the valid
// outputs of a tap form one range [first, last), reading idx[first] + (o - first) * stride.
struct Taps {
  I64s idx, first, last;
  bool ranges = false;
};

Taps make_taps(const ConvGeom& g, std::size_t d) {
  const std::int64_t k = g.k[d], out = g.out[d], in_d = dilated(g.in[d], g.a.lhs_dil[d]);
  Taps t{I64s(std::size_t(k * out)), I64s(std::size_t(k), 0), I64s(std::size_t(k), 0), g.a.lhs_dil[d] == 1};
  for (std::int64_t i = 0; i < k; ++i) {
    bool seen = false;
    for (std::int64_t o = 0; o < out; ++o) {
      const std::int64_t p = o * g.a.stride[d] + i * g.a.rhs_dil[d] - g.a.pad_lo[d];
      const bool ok = p >= 0 && p < in_d && p % g.a.lhs_dil[d] == 0;
      t.idx[std::size_t(i * out + o)] = ok ? p / g.a.lhs_dil[d] : -1;
      if (ok && !seen) t.first[std::size_t(i)] = o;
      if (ok) t.last[std::size_t(i)] = o + 1;
      seen = seen || ok;
    }
  }
  return t;
}

// One output row of im2col: row[o] = src[input index of tap j at output o]. Rows
// are often a few elements long (small images, and the kernel-gradient
// convolutions whose outputs are the kernel's size), so the loops are plain.
template <class T>
void copy_row(const T* src, T* row, const Taps& tw, std::int64_t j, std::int64_t ow, std::int64_t stride) {
  const std::int64_t* idx = tw.idx.data() + j * ow;
  if (!tw.ranges) {
    for (std::int64_t o = 0; o < ow; ++o) row[o] = idx[o] >= 0 ? src[idx[o]] : T(0);
    return;
  }
  const std::int64_t a = tw.first[std::size_t(j)], b = std::max(a, tw.last[std::size_t(j)]);
  for (std::int64_t o = 0; o < a; ++o) row[o] = T(0);
  if (a < b) {
    const T* s = src + idx[a];
    if (stride == 1 && b - a >= 16)
      std::copy(s, s + (b - a), row + a);
    else
      for (std::int64_t o = a; o < b; ++o) row[o] = s[(o - a) * stride];
  }
  for (std::int64_t o = b; o < ow; ++o) row[o] = T(0);
}

// Where each output position of each kernel tap reads in an input plane (-1: a
// padding or dilation hole), when that table is small: the im2col of small images
// and of the kernel-gradient convolutions (whose outputs are the kernel's size)
// then copies a plane's P values in one loop instead of oh rows of a few values.
constexpr std::int64_t kMaxOffsets = std::int64_t(1) << 16;

std::vector<std::int32_t> plane_offsets(const ConvGeom& g, const Taps& th, const Taps& tw) {
  const std::int64_t oh = g.out[0], ow = g.out[1], taps = g.k[0] * g.k[1];
  if (taps * oh * ow > kMaxOffsets || g.in[0] * g.in[1] > std::numeric_limits<std::int32_t>::max()) return {};
  std::vector<std::int32_t> off(std::size_t(taps * oh * ow));
  std::size_t n = 0;
  for (std::int64_t i = 0; i < g.k[0]; ++i)
    for (std::int64_t j = 0; j < g.k[1]; ++j)
      for (std::int64_t y = 0; y < oh; ++y)
        for (std::int64_t x = 0; x < ow; ++x) {
          const std::int64_t iy = th.idx[std::size_t(i * oh + y)], ix = tw.idx[std::size_t(j * ow + x)];
          off[n++] = iy < 0 || ix < 0 ? -1 : std::int32_t(iy * g.in[1] + ix);
        }
  return off;
}

// dst[p] = src[off[p]], 0 for a hole; branch-free (a hole reads element 0 and
// drops it) and on unaliased pointers, so the compilers vectorize it with gathers.
template <class T>
void gather_plane(const T* __restrict src, const std::int32_t* __restrict off, T* __restrict dst, std::int64_t n) {
  for (std::int64_t p = 0; p < n; ++p) {
    const std::int32_t q = off[p];
    const T v = src[q < 0 ? 0 : q];
    dst[p] = q < 0 ? T(0) : v;
  }
}

// col[k, b * P + p] for nb batch items starting at x, with k = (c * kH + i) * kW + j
// over all channels: for groups that is [groups, C/groups * kH * kW, nb * P].
template <class T>
void im2col(const T* x, std::int64_t nb, const ConvGeom& g, const Taps& th, const Taps& tw,
            const std::vector<std::int32_t>& offsets, T* col) {
  const std::int64_t kk = g.k[0] * g.k[1], rows = g.c * kk, P = g.out[0] * g.out[1];
  const std::int64_t plane = g.in[0] * g.in[1], oh = g.out[0], ow = g.out[1];
  const std::int64_t grain = std::max<std::int64_t>(1, 4096 / std::max<std::int64_t>(nb * P, 1));
  detail::parallel_for(rows, grain, [&](std::int64_t b, std::int64_t e) {
    for (std::int64_t k = b; k < e; ++k) {
      const std::int64_t c = k / kk, i = (k / g.k[1]) % g.k[0], j = k % g.k[1];
      const std::int32_t* off = offsets.empty() ? nullptr : offsets.data() + (k % kk) * P;
      for (std::int64_t item = 0; item < nb; ++item) {
        const T* src = x + (item * g.c + c) * plane;
        T* dst = col + (k * nb + item) * P;
        if (off != nullptr) {
          gather_plane(src, off, dst, P);
          continue;
        }
        for (std::int64_t y = 0; y < oh; ++y) {
          const std::int64_t iy = th.idx[std::size_t(i * oh + y)];
          if (iy < 0)
            for (std::int64_t o = 0; o < ow; ++o) dst[y * ow + o] = T(0);
          else
            copy_row(src + iy * g.in[1], dst + y * ow, tw, j, ow, g.a.stride[1]);
        }
      }
    }
  });
}

bool is_pointwise(const ConvGeom& g) {
  const ConvAttrs& a = g.a;
  return g.k == I2{1, 1} && a.stride == I2{1, 1} && a.pad_lo == I2{0, 0} && a.pad_hi == I2{0, 0} &&
         a.lhs_dil == I2{1, 1};
}

// Batch items share one gemm only until it has kMinColumns columns: larger
// products gain nothing single-threaded and lose cache locality (measured: 12 ms
// per item versus 17 ms as one gemm for [8, 64, 32, 32] * [64, 64, 3, 3]), while
// tiny images need the batch to give OpenBLAS's threads enough work. The
// im2col buffer is also capped at kColBudget elements.
constexpr std::int64_t kMinColumns = 1024;
constexpr std::int64_t kColBudget = std::int64_t(1) << 22;

std::int64_t batch_chunk(const ConvGeom& g, std::int64_t rows, std::int64_t P) {
  if (is_pointwise(g)) return 1;
  const std::int64_t wanted = (kMinColumns + P - 1) / P,
                     fits = kColBudget / std::max<std::int64_t>(rows * P, 1);
  return std::clamp<std::int64_t>(std::min(wanted, fits), 1, std::max<std::int64_t>(g.n, 1));
}

// Per chunk of batch items: im2col of all channels gives [groups, K, nb * P], so
// one batched gemm with w as [groups, og, K] yields [o, nb * P].
template <class T>
void conv_host(const T* x, const T* w, T* out, const ConvGeom& g) {
  const std::int64_t K = g.cg * g.k[0] * g.k[1], P = g.out[0] * g.out[1];
  if (g.n * g.o * P == 0) return;
  // A 1x1 kernel without stride or padding reads x as it is: no im2col.
  const bool pointwise = is_pointwise(g);
  const std::int64_t rows = g.c * g.k[0] * g.k[1], chunk = batch_chunk(g, rows, P);
  const Taps th = make_taps(g, 0), tw = make_taps(g, 1);
  const std::vector<std::int32_t> offsets = pointwise ? std::vector<std::int32_t>{} : plane_offsets(g, th, tw);
  detail::parallel_for((g.n + chunk - 1) / chunk, 1, [&](std::int64_t c0, std::int64_t c1) {
    std::unique_ptr<T[]> col, tmp;
    if (!pointwise) col = std::make_unique_for_overwrite<T[]>(std::size_t(rows * chunk * P));
    if (chunk > 1) tmp = std::make_unique_for_overwrite<T[]>(std::size_t(g.o * chunk * P));
    for (std::int64_t n0 = c0 * chunk; n0 < std::min(g.n, c1 * chunk); n0 += chunk) {
      const std::int64_t nb = std::min(chunk, g.n - n0);
      const T* xn = x + n0 * g.c * g.in[0] * g.in[1];
      if (!pointwise) im2col(xn, nb, g, th, tw, offsets, col.get());
      T* dst = nb == 1 ? out + n0 * g.o * P : tmp.get();
      detail::gemm(detail::GemmShape{g.groups, g.og, nb * P, K}, w, pointwise ? xn : col.get(), dst);
      if (nb == 1) continue;
      // tmp is [o, nb, P]; out wants [nb, o, P].
      detail::parallel_for(g.o * nb, 16, [&](std::int64_t s, std::int64_t e) {
        for (std::int64_t r = s; r < e; ++r) {
          const T* src = tmp.get() + r * P;
          std::copy(src, src + P, out + ((n0 + r % nb) * g.o + r / nb) * P);
        }
      });
    }
  });
}

Tensor conv_kernel(const Tensor& x, const Tensor& w, const ConvGeom& g, const TensorType& out_type) {
  // 16-bit floats compute in f32.
  const DType t = is_half(out_type.dtype) ? DType::f32 : out_type.dtype;
  const Tensor xc = x.astype(t), wc = w.astype(t);
  Tensor out = detail::empty(out_type.shape, t);
  if (t == DType::f32)
    conv_host(xc.data<float>(), wc.data<float>(), detail::mutable_data<float>(out), g);
  else
    conv_host(xc.data<double>(), wc.data<double>(), detail::mutable_data<double>(out), g);
  return out.astype(out_type.dtype);
}

// ---- derivatives (JAX's transposes of conv_general_dilated) -------------------------
// Per spatial dim, with L, K, O the input, kernel and output sizes dilated by the
// lhs dilation, rhs dilation and stride: output o reads input o * stride + k *
// rhs_dil - pad_lo (in dilated input coordinates) for each tap k.

std::vector<Tensor> conv_jvp(const detail::Rule& r) {
  Tensor t;
  if (r.has_tangent(0)) t = detail::call1(*r.op(), {r.tangent(0), r.in(1)}, r.attrs());
  if (r.has_tangent(1)) t = detail::add_tangents(t, detail::call1(*r.op(), {r.in(0), r.tangent(1)}, r.attrs()));
  return {t};
}

// tl::conv2d's options as an argument: as written (tlaloc-grad records them so), or
// field by field.
std::string cpp_conv_options(const Attrs& a) {
  if (const std::string* written = detail::cpp_written(a, "options")) return *written;
  const Conv2dOptions o = options_of(a);
  const auto pair = detail::cpp_pair;
  return fmt::format("tl::Conv2dOptions{{.stride = {}, .padding = {}, .dilation = {}, .groups = {}}}",
                     pair(o.stride), pair(o.padding), pair(o.dilation), o.groups);
}
// Each share in its operand's dtype, as tl::derivatives::conv2d_backward gives it.
Tensor conv_share(const Tensor& g, const Tensor& x, const Tensor& w, const Attrs& attrs, int operand) {
  return operand == 0 ? detail::conv2d_input_grad(g, w, x.shape(), attrs).astype(x.dtype())
                      : detail::conv2d_kernel_grad(g, x, w.shape(), attrs).astype(w.dtype());
}
extern const detail::OpDef& conv2d_backward_op;

std::vector<Tensor> conv_vjp(const detail::Rule& r) {
  std::vector<Tensor> g(2);
  // Types or options known at run time only: the library's shares, as ops.
  if (r.attrs().any_written() || detail::is_untyped(r.cotangent()) || detail::is_untyped(r.in(0)) ||
      detail::is_untyped(r.in(1))) {
    for (int k = 0; k < 2; ++k)
      if (r.wants(std::size_t(k)))
        g[std::size_t(k)] = detail::share_or_op(conv2d_backward_op, conv_share, r.cotangent(), r.in(0),
                                                r.in(1), r.attrs(), k);
    return g;
  }
  if (r.wants(0)) g[0] = detail::conv2d_input_grad(r.cotangent(), r.in(1), r.in(0).shape(), r.attrs());
  if (r.wants(1)) g[1] = detail::conv2d_kernel_grad(r.cotangent(), r.in(0), r.in(1).shape(), r.attrs());
  return g;
}

const detail::OpDef& conv_op =
    detail::def_op("conv2d")
        .multilinear()
        .called_as({.names = {"conv2d"},
                    .attributes = {"options"},
                    .defaults = {{"options", detail::Written{"{}"}}}})
        .inputs(2)
        .shape_rule([](std::span<const TensorType> in, const Attrs& attrs) {
          check_dtypes("conv2d", in[0].dtype, in[1].dtype);
          const ConvGeom g = conv_geometry("conv2d", in[0].shape, in[1].shape, from_attrs(attrs));
          return std::vector<TensorType>{
              {promote_types(in[0].dtype, in[1].dtype), {g.n, g.o, g.out[0], g.out[1]}}};
        })
        .kernel([](std::span<const Tensor> in, const Attrs& attrs, std::span<const TensorType> out) {
          const ConvGeom g = conv_geometry("conv2d", in[0].shape(), in[1].shape(), from_attrs(attrs));
          return std::vector<Tensor>{conv_kernel(in[0], in[1], g, out[0])};
        })
        .lower([](std::span<const Tensor> in, const Attrs& attrs) {
          const ConvAttrs a = from_attrs(attrs);
          Attrs spec = to_attrs(a);
          spec.set("padding", I64s{a.pad_lo[0], a.pad_hi[0], a.pad_lo[1], a.pad_hi[1]});
          spec.set("batch_group_count", std::int64_t(1));
          // NCHW input and output, OIHW kernel.
          for (const char* side : {"input", "output"}) {
            spec.set(fmt::format("{}_batch_dimension", side), std::int64_t(0));
            spec.set(fmt::format("{}_feature_dimension", side), std::int64_t(1));
            spec.set(fmt::format("{}_spatial_dimensions", side), I64s{2, 3});
          }
          spec.set("kernel_output_feature_dimension", std::int64_t(0));
          spec.set("kernel_input_feature_dimension", std::int64_t(1));
          spec.set("kernel_spatial_dimensions", I64s{2, 3});
          return detail::call(*detail::find_op("convolution"), in, spec);
        })
        .jvp(conv_jvp)
        .vjp(conv_vjp)
        .cpp([](detail::CppOp& op) {
          const Attrs& a = op.attrs();
          if (a.any_written() || a.has("stride"))
            return detail::cpp_call("tl::conv2d", op, {cpp_conv_options(a)});
          std::vector<std::string> extra;
          for (const char* name : {"window_strides", "padding_low", "padding_high", "lhs_dilation", "rhs_dilation"})
            extra.push_back(detail::cpp_ints(a.get<I64s>(name)));
          extra.push_back(fmt::format("{}", a.get<std::int64_t>("feature_group_count")));
          return detail::cpp_call("tl::lax::conv2d", op, extra);
        });

Tensor conv_product(const Tensor& x, const Tensor& w, const Attrs& attrs) {
  return detail::call1(conv_op, {x, w}, attrs);
}
// tl::derivatives::conv2d_backward on values of unknown type.
const detail::OpDef& conv2d_backward_op =
    detail::def_product_share("conv2d_backward", conv_share, conv_product)
        .called_as({.names = {"conv2d_backward"}, .attributes = {"options", "operand"}})
        .cpp([](detail::CppOp& op) {
          return detail::cpp_call("tl::derivatives::conv2d_backward", op,
                                  {cpp_conv_options(op.attrs()), detail::cpp_attr(op.attrs(), "operand")});
        });

}  // namespace

namespace detail {
// The input's cotangent: g dilated by the strides (lhs dilation), read with the
// forward's lhs dilation as the stride, padded so that every input position sees
// the outputs it fed, convolved with the flipped, channel-swapped kernel.
Tensor conv2d_input_grad(const Tensor& g, const Tensor& w, const Shape& x_shape, const Attrs& attrs) {
  const ConvAttrs a = from_attrs(attrs);
  const std::int64_t groups = a.groups, o = w.shape()[0], cg = w.shape()[1], og = o / groups;
  const std::int64_t kh = w.shape()[2], kw = w.shape()[3];
  Tensor k = reshape(w, {groups, og, cg, kh, kw});
  k = reshape(transpose(k, {0, 2, 1, 3, 4}), {groups * cg, og, kh, kw});
  k = reverse(k, Axes{2, 3});
  ConvAttrs t;
  t.groups = groups;
  for (std::size_t d = 0; d < 2; ++d) {
    const std::int64_t in = dilated(x_shape[d + 2], a.lhs_dil[d]), kd = dilated(w.shape()[d + 2], a.rhs_dil[d]),
                       out = dilated(g.shape()[d + 2], a.stride[d]);
    t.lhs_dil[d] = a.stride[d];
    t.stride[d] = a.lhs_dil[d];
    t.rhs_dil[d] = a.rhs_dil[d];
    t.pad_lo[d] = kd - 1 - a.pad_lo[d];
    t.pad_hi[d] = in + kd - 1 - out - t.pad_lo[d];
  }
  return call1(conv_op, {g, k}, to_attrs(t));
}

// The kernel's cotangent: a convolution of x (batch and feature dims swapped, so
// that the batch is summed over) with g as the kernel, dilated by the strides. The
// groups ride in the contracted feature dim: x as [C/G, G*N, H, W] and g as
// [G*O/G, N, h, w] with G feature groups give exactly the per-group products.
Tensor conv2d_kernel_grad(const Tensor& g, const Tensor& x, const Shape& w_shape, const Attrs& attrs) {
  const ConvAttrs a = from_attrs(attrs);
  const std::int64_t n = x.shape()[0], c = x.shape()[1], o = g.shape()[1], groups = a.groups;
  const std::int64_t cg = c / groups, og = o / groups;
  const Shape& xs = x.shape();
  const Shape& gs = g.shape();
  Tensor lhs = reshape(x, {n, groups, cg, xs[2], xs[3]});
  lhs = reshape(transpose(lhs, {2, 1, 0, 3, 4}), {cg, groups * n, xs[2], xs[3]});
  Tensor rhs = reshape(g, {n, groups, og, gs[2], gs[3]});
  rhs = reshape(transpose(rhs, {1, 2, 0, 3, 4}), {groups * og, n, gs[2], gs[3]});
  ConvAttrs t;
  t.groups = groups;
  for (std::size_t d = 0; d < 2; ++d) {
    const std::int64_t in = dilated(xs[d + 2], a.lhs_dil[d]), k = dilated(w_shape[d + 2], a.rhs_dil[d]),
                       out = dilated(gs[d + 2], a.stride[d]);
    t.stride[d] = a.rhs_dil[d];
    t.rhs_dil[d] = a.stride[d];
    t.lhs_dil[d] = a.lhs_dil[d];
    t.pad_lo[d] = a.pad_lo[d];
    t.pad_hi[d] = k - 1 + out - in - a.pad_lo[d];
  }
  const Tensor r = call1(conv_op, {lhs, rhs}, to_attrs(t));  // [C/G, O, kH, kW]
  return transpose(r, {1, 0, 2, 3});
}
}  // namespace detail

namespace {
// conv2d's attributes for its options, checked against x and w under the name `fn`.
Attrs conv2d_attrs(std::string_view fn, const Tensor& x, const Tensor& w, const Conv2dOptions& opt) {
  check_dtypes(fn, x.dtype(), w.dtype());
  for (std::size_t d = 0; d < 2; ++d)
    if (opt.padding[d] < 0) fail<ValueError>(fn, "padding must be >= 0, got {}", opt.padding);
  const ConvAttrs a = conv_attrs_of(opt);
  conv_geometry(fn, x.shape(), w.shape(), a);
  return to_attrs(a);
}
}  // namespace

Tensor conv2d(const Tensor& x, const Tensor& w, const Conv2dOptions& opt) {
  if (detail::is_untyped(x) || detail::is_untyped(w))
    return detail::call1(conv_op, {x, w}, options_attrs(opt));
  return detail::call1(conv_op, {x, w}, conv2d_attrs("conv2d", x, w, opt));
}

// The functions of the engine's rule (conv_vjp), under the attributes conv2d makes.
Tensor derivatives::conv2d_backward(const Tensor& g, const Tensor& x, const Tensor& w, const Conv2dOptions& opt,
                       int operand) {
  if (operand != 0 && operand != 1)
    fail<ValueError>("conv2d_backward", "operand is {}: 0 for x, 1 for w", operand);
  const Attrs attrs = conv2d_attrs("conv2d_backward", x, w, opt);
  const Shape y =
      conv_op.infer(std::vector<TensorType>{detail::type_of(x), detail::type_of(w)}, attrs).at(0).shape;
  if (g.shape() != y)
    fail<ShapeError>("conv2d_backward", "g is {}, but conv2d of {} and {} is {}", shape_string(g.shape()),
                     shape_string(x.shape()), shape_string(w.shape()), shape_string(y));
  // Each share in its operand's dtype (as matmul_backward's): conv2d promotes x and w
  // together, and the engine converts the share back as it transposes that conversion.
  return operand == 0 ? detail::conv2d_input_grad(g, w, x.shape(), attrs).astype(x.dtype())
                      : detail::conv2d_kernel_grad(g, x, w.shape(), attrs).astype(w.dtype());
}

namespace {
// conv_transpose2d is conv2d's input gradient: a convolution of x dilated by the
// stride with the kernel flipped and its in/out channels swapped per group. Its
// attributes and that kernel, checked under the name `fn`.
struct TransposedConv {
  Attrs attrs;
  Tensor kernel;  // [O, C/groups, kH, kW]
};
TransposedConv transposed_conv(std::string_view fn, const Tensor& x, const Tensor& w,
                               const ConvTranspose2dOptions& opt) {
  check_dtypes(fn, x.dtype(), w.dtype());
  if (x.rank() != 4 || w.rank() != 4)
    fail<ShapeError>(fn, "needs x [N, C, H, W] and w [C, O/groups, kH, kW], got x {} and w {}",
                     shape_string(x.shape()), shape_string(w.shape()));
  const std::int64_t groups = opt.groups, c = x.shape()[1];
  if (groups < 1) fail<ValueError>(fn, "groups must be >= 1, got {}", groups);
  if (w.shape()[0] != c || c % groups != 0)
    fail<ShapeError>(fn, "x {} and w {} do not fit {} groups (need w.shape[0] = C divisible by {})",
                     shape_string(x.shape()), shape_string(w.shape()), groups, groups);
  ConvAttrs a;
  a.groups = groups;
  for (std::size_t d = 0; d < 2; ++d) {
    const std::int64_t s = opt.stride[d], dil = opt.dilation[d], p = opt.padding[d],
                       op_ = opt.output_padding[d];
    if (s < 1 || dil < 1 || p < 0 || op_ < 0 || op_ >= std::max(s, dil))
      fail<ValueError>(fn,
                       "needs stride, dilation >= 1, padding >= 0 and 0 <= output_padding < "
                       "max(stride, dilation), got stride {}, dilation {}, padding {}, output_padding {}",
                       opt.stride, opt.dilation, opt.padding, opt.output_padding);
    const std::int64_t in = x.shape()[d + 2], k = w.shape()[d + 2];
    const std::int64_t out = (in - 1) * s - 2 * p + dil * (k - 1) + op_ + 1;
    if (in < 1 || k < 1 || out < 1)
      fail<ShapeError>(fn, "x {} with w {} gives no output (stride {}, padding {}, dilation {})",
                       shape_string(x.shape()), shape_string(w.shape()), opt.stride, opt.padding,
                       opt.dilation);
    a.lhs_dil[d] = s;
    a.rhs_dil[d] = dil;
    a.pad_lo[d] = dil * (k - 1) - p;
    a.pad_hi[d] = a.pad_lo[d] + op_;
  }
  const std::int64_t cg = c / groups, og = w.shape()[1], kh = w.shape()[2], kw = w.shape()[3];
  Tensor k = reshape(w, {groups, cg, og, kh, kw});
  k = reshape(transpose(k, {0, 2, 1, 3, 4}), {groups * og, cg, kh, kw});
  return {to_attrs(a), reverse(k, Axes{2, 3})};
}
}  // namespace

Tensor conv_transpose2d(const Tensor& x, const Tensor& w, const ConvTranspose2dOptions& opt) {
  if (detail::is_untyped(x) || detail::is_untyped(w)) return detail::record_conv_transpose2d(x, w, opt);
  const TransposedConv t = transposed_conv("conv_transpose2d", x, w, opt);
  return detail::call1(conv_op, {x, t.kernel}, t.attrs);
}

// The engine's rule for conv_transpose2d's steps: the convolution's transposes, then
// (for w) the kernel's flip, transpose and reshapes undone.
Tensor derivatives::conv_transpose2d_backward(const Tensor& g, const Tensor& x, const Tensor& w,
                                 const ConvTranspose2dOptions& opt, int operand) {
  constexpr std::string_view fn = "conv_transpose2d_backward";
  if (operand != 0 && operand != 1) fail<ValueError>(fn, "operand is {}: 0 for x, 1 for w", operand);
  const TransposedConv t = transposed_conv(fn, x, w, opt);
  const Shape y =
      conv_op.infer(std::vector<TensorType>{detail::type_of(x), detail::type_of(t.kernel)}, t.attrs)
          .at(0)
          .shape;
  if (g.shape() != y)
    fail<ShapeError>(fn, "g is {}, but conv_transpose2d of {} and {} is {}", shape_string(g.shape()),
                     shape_string(x.shape()), shape_string(w.shape()), shape_string(y));
  if (operand == 0) return detail::conv2d_input_grad(g, t.kernel, x.shape(), t.attrs).astype(x.dtype());
  const Tensor gk = reverse(detail::conv2d_kernel_grad(g, x, t.kernel.shape(), t.attrs), Axes{2, 3});
  const std::int64_t groups = opt.groups, cg = x.shape()[1] / groups, og = w.shape()[1];
  const Tensor grouped = reshape(gk, {groups, og, cg, w.shape()[2], w.shape()[3]});
  return reshape(transpose(grouped, {0, 2, 1, 3, 4}), w.shape()).astype(w.dtype());
}

Tensor lax::conv2d(const Tensor& x, const Tensor& w, const std::vector<std::int64_t>& window_strides,
                   const std::vector<std::int64_t>& padding_low, const std::vector<std::int64_t>& padding_high,
                   const std::vector<std::int64_t>& lhs_dilation, const std::vector<std::int64_t>& rhs_dilation,
                   std::int64_t feature_group_count) {
  return detail::call1(conv_op, {x, w},
                       {{"window_strides", window_strides},
                        {"padding_low", padding_low},
                        {"padding_high", padding_high},
                        {"lhs_dilation", lhs_dilation},
                        {"rhs_dilation", rhs_dilation},
                        {"feature_group_count", feature_group_count}});
}

}  // namespace tlaloc
