// StableHLO's convolution in full: any number of spatial dims, any layout
// (dimension_numbers), padding (negative too), lhs/rhs dilation, window reversal,
// feature and batch groups, and a result type that may differ from the operands'.
// Floating 2-D cases without batch groups or reversal are transposed to NCHW/OIHW
// and run on conv2d's im2col + gemm kernel; everything else on the direct loop here.
#include <algorithm>

#include <fmt/format.h>

#include "core/dispatch_type.hpp"
#include "core/tensor_impl.hpp"
#include "ir/op.hpp"
#include "ops/conv_grad.hpp"
#include "ops/cpp_spelling.hpp"
#include "ops/lax_attrs.hpp"
#include "ops/rule.hpp"
#include "tlaloc/lax.hpp"
#include "tlaloc/ops.hpp"

namespace tlaloc {
namespace {

using detail::Attrs;
using detail::fail;
using detail::TensorType;
using Ints = std::vector<std::int64_t>;
constexpr std::string_view kOp = "convolution";

// The attributes of one convolution, defaults filled in, per spatial dim.
struct Conv {
  std::int64_t in_b, in_f, k_i, k_o, out_b, out_f, fgc, bgc;
  Ints in_s, k_s, out_s, stride, pad_lo, pad_hi, lhs_dil, rhs_dil, reverse;
  std::size_t n = 0;  // spatial dims
};

Ints get_or(const Attrs& a, std::string_view key, std::size_t n, std::int64_t fill) {
  if (!a.has(key)) return Ints(n, fill);
  const Ints& v = a.get<Ints>(key);
  if (v.size() != n) fail<ValueError>(kOp, "{} needs {} values (one per spatial dim), got {}", key, n, v);
  return v;
}

Conv read(const Attrs& a) {
  Conv c{a.get<std::int64_t>("input_batch_dimension"),
         a.get<std::int64_t>("input_feature_dimension"),
         a.get<std::int64_t>("kernel_input_feature_dimension"),
         a.get<std::int64_t>("kernel_output_feature_dimension"),
         a.get<std::int64_t>("output_batch_dimension"),
         a.get<std::int64_t>("output_feature_dimension"),
         a.has("feature_group_count") ? a.get<std::int64_t>("feature_group_count") : 1,
         a.has("batch_group_count") ? a.get<std::int64_t>("batch_group_count") : 1,
         a.get<Ints>("input_spatial_dimensions"),
         a.get<Ints>("kernel_spatial_dimensions"),
         a.get<Ints>("output_spatial_dimensions"),
         {},
         {},
         {},
         {},
         {},
         {},
         0};
  c.n = c.in_s.size();
  c.stride = get_or(a, "window_strides", c.n, 1);
  const Ints pad = a.has("padding") ? a.get<Ints>("padding") : Ints(2 * c.n, 0);
  if (pad.size() != 2 * c.n) fail<ValueError>(kOp, "padding needs {} rows [low, high], got {}", c.n, pad);
  for (std::size_t d = 0; d < c.n; ++d) {
    c.pad_lo.push_back(pad[2 * d]);
    c.pad_hi.push_back(pad[2 * d + 1]);
  }
  c.lhs_dil = get_or(a, "lhs_dilation", c.n, 1);
  c.rhs_dil = get_or(a, "rhs_dilation", c.n, 1);
  c.reverse = get_or(a, "window_reversal", c.n, 0);
  return c;
}

// Each of an operand's dims named exactly once by the dimension numbers.
void check_layout(const char* what, std::size_t rank, std::int64_t a, std::int64_t b, const Ints& s) {
  std::vector<bool> seen(rank, false);
  Ints all = s;
  all.push_back(a);
  all.push_back(b);
  if (all.size() != rank)
    fail<ShapeError>(kOp, "{} has rank {} but the dimension numbers name {} dims", what, rank, all.size());
  for (std::int64_t d : all) {
    if (d < 0 || std::size_t(d) >= rank || seen[std::size_t(d)])
      fail<ValueError>(kOp, "{} dimension numbers {} are not a permutation of 0..{}", what, all, rank - 1);
    seen[std::size_t(d)] = true;
  }
}

Ints row_major_strides(const Shape& s) {
  Ints st(s.size(), 1);
  for (std::size_t d = s.size(); d-- > 1;) st[d - 1] = st[d] * s[d];
  return st;
}

std::int64_t dilated(std::int64_t n, std::int64_t d) { return n == 0 ? 0 : (n - 1) * d + 1; }

std::vector<TensorType> conv_rule(std::span<const TensorType> in, const Attrs& attrs) {
  const Conv c = read(attrs);
  const Shape &xs = in[0].shape, &ws = in[1].shape;
  check_layout("lhs", xs.size(), c.in_b, c.in_f, c.in_s);
  check_layout("rhs", ws.size(), c.k_i, c.k_o, c.k_s);
  check_layout("result", xs.size(), c.out_b, c.out_f, c.out_s);
  for (std::size_t d = 0; d < c.n; ++d)
    if (c.stride[d] < 1 || c.lhs_dil[d] < 1 || c.rhs_dil[d] < 1)
      fail<ValueError>(kOp, "strides {} and dilations {}, {} must be >= 1", c.stride, c.lhs_dil, c.rhs_dil);
  const std::int64_t N = xs[std::size_t(c.in_b)], C = xs[std::size_t(c.in_f)];
  const std::int64_t I = ws[std::size_t(c.k_i)], O = ws[std::size_t(c.k_o)];
  if (c.fgc < 1 || c.bgc < 1 || (c.fgc > 1 && c.bgc > 1))
    fail<ValueError>(kOp, "feature_group_count {} and batch_group_count {} must be >= 1, not both > 1", c.fgc,
                     c.bgc);
  if (C % c.fgc != 0 || C / c.fgc != I || O % c.fgc != 0 || O % c.bgc != 0 || N % c.bgc != 0)
    fail<ShapeError>(kOp,
                     "lhs {} and rhs {} do not fit feature_group_count {} and batch_group_count {} "
                     "(need C = I * fgc, O divisible by both, N by batch_group_count)",
                     shape_string(xs), shape_string(ws), c.fgc, c.bgc);
  const DType t = attrs.has("result_element_type") ? attrs.get<DType>("result_element_type")
                                                   : promote_types(in[0].dtype, in[1].dtype);
  if (t == DType::boolean || promote_types(in[0].dtype, in[1].dtype) == DType::boolean)
    fail<DTypeError>(kOp, "no kernel for {} x {} -> {}", in[0].dtype, in[1].dtype, t);
  Shape out(xs.size());
  out[std::size_t(c.out_b)] = N / c.bgc;
  out[std::size_t(c.out_f)] = O;
  for (std::size_t d = 0; d < c.n; ++d) {
    const std::int64_t padded = dilated(xs[std::size_t(c.in_s[d])], c.lhs_dil[d]) + c.pad_lo[d] + c.pad_hi[d];
    const std::int64_t window = dilated(ws[std::size_t(c.k_s[d])], c.rhs_dil[d]);
    out[std::size_t(c.out_s[d])] = padded <= 0 || window > padded ? 0 : (padded - window) / c.stride[d] + 1;
  }
  return {{t, out}};
}

// The direct loop: each result element sums its window over its group's input features.
template <class T>
void conv_loop(const Tensor& x, const Tensor& w, const Conv& c, Tensor& y) {
  const Shape &xs = x.shape(), &ws = w.shape(), &ys = y.shape();
  const Ints xst = row_major_strides(xs), wst = row_major_strides(ws);
  const T *xp = x.data<T>(), *wp = w.data<T>();
  T* yp = detail::mutable_data<T>(y);
  const std::int64_t N = xs[std::size_t(c.in_b)], I = ws[std::size_t(c.k_i)], O = ws[std::size_t(c.k_o)];
  const std::int64_t og = O / c.fgc, ob = O / c.bgc, nb = N / c.bgc;
  Ints win(c.n);
  for (std::size_t d = 0; d < c.n; ++d) win[d] = ws[std::size_t(c.k_s[d])];
  const std::int64_t taps = detail::numel_of(win);
  Ints idx(ys.size(), 0);
  for (std::int64_t e = 0; e < y.numel(); ++e) {
    const std::int64_t b = idx[std::size_t(c.out_b)], o = idx[std::size_t(c.out_f)];
    const std::int64_t n = (o / ob) * nb + b, f0 = (o / og) * I;
    T acc = T(0);
    for (std::int64_t t = 0; t < taps; ++t) {
      std::int64_t xoff = n * xst[std::size_t(c.in_b)], woff = o * wst[std::size_t(c.k_o)], rest = t;
      bool ok = true;
      for (std::size_t d = c.n; d-- > 0 && ok;) {
        const std::int64_t k = rest % win[d];
        rest /= win[d];
        const std::int64_t p = idx[std::size_t(c.out_s[d])] * c.stride[d] + k * c.rhs_dil[d] - c.pad_lo[d];
        const std::int64_t in_d = xs[std::size_t(c.in_s[d])];
        ok = p >= 0 && p % c.lhs_dil[d] == 0 && p / c.lhs_dil[d] < in_d;
        xoff += (p / std::max<std::int64_t>(c.lhs_dil[d], 1)) * xst[std::size_t(c.in_s[d])];
        woff += (c.reverse[d] ? win[d] - 1 - k : k) * wst[std::size_t(c.k_s[d])];
      }
      if (!ok) continue;
      for (std::int64_t i = 0; i < I; ++i)
        acc =
            T(acc + xp[xoff + (f0 + i) * xst[std::size_t(c.in_f)]] * wp[woff + i * wst[std::size_t(c.k_i)]]);
    }
    yp[e] = acc;
    for (std::size_t d = ys.size(); d-- > 0;) {
      if (++idx[d] < ys[d]) break;
      idx[d] = 0;
    }
  }
}

// The 2-D floating cases conv2d's kernel runs: NCHW/OIHW views of the operands.
bool fits_conv2d(const Conv& c, DType ct) {
  return c.n == 2 && c.bgc == 1 && (ct == DType::f32 || ct == DType::f64) &&
         std::none_of(c.reverse.begin(), c.reverse.end(), [](std::int64_t r) { return r != 0; });
}

Tensor run_conv2d(const Tensor& x, const Tensor& w, const Conv& c, const TensorType& out) {
  const Tensor xn = transpose(x, {c.in_b, c.in_f, c.in_s[0], c.in_s[1]});
  const Tensor wn = transpose(w, {c.k_o, c.k_i, c.k_s[0], c.k_s[1]});
  const Attrs a{{"window_strides", c.stride}, {"padding_low", c.pad_lo},   {"padding_high", c.pad_hi},
                {"lhs_dilation", c.lhs_dil},  {"rhs_dilation", c.rhs_dil}, {"feature_group_count", c.fgc}};
  const Tensor yn = detail::call1(*detail::find_op("conv2d"), {xn, wn}, a);
  // yn is [b, f, s0, s1]; the result puts those where output_* say.
  Ints perm(4);
  perm[std::size_t(c.out_b)] = 0;
  perm[std::size_t(c.out_f)] = 1;
  perm[std::size_t(c.out_s[0])] = 2;
  perm[std::size_t(c.out_s[1])] = 3;
  return transpose(yn, perm).astype(out.dtype);
}

std::vector<Tensor> conv_kernel(std::span<const Tensor> in, const Attrs& attrs,
                                std::span<const TensorType> out) {
  const Conv c = read(attrs);
  const DType wide = promote_types(promote_types(in[0].dtype(), in[1].dtype()), out[0].dtype);
  const DType ct = is_half(wide) ? DType::f32 : wide;
  bool nonempty = true;
  for (std::int64_t s : out[0].shape) nonempty = nonempty && s > 0;
  for (std::int64_t s : in[1].shape()) nonempty = nonempty && s > 0;
  if (fits_conv2d(c, ct) && nonempty) return {run_conv2d(in[0].astype(ct), in[1].astype(ct), c, out[0])};
  const Tensor x = in[0].astype(ct), w = in[1].astype(ct);
  Tensor y = detail::empty(out[0].shape, ct);
  TLALOC_SWITCH_COMPUTE(ct, kOp, conv_loop<T>(x, w, c, y))
  return {y.astype(out[0].dtype)};
}

// ---- derivatives ------------------------------------------------------------------
// Forward mode: the op is bilinear, so its own calls on the tangents, for every
// configuration. Reverse mode: the 2-D cases without batch groups or window
// reversal (those conv2d covers) are transposed to NCHW / OIHW and take conv2d's
// transposes; the others (1-D, 3-D, batch_group_count > 1, window_reversal) are
// refused by name: their transposes need the general dimension-numbers
// transposition, not written yet.
std::vector<Tensor> convolution_jvp(const detail::Rule& r) {
  Tensor t;
  if (r.has_tangent(0)) t = detail::call1(*r.op(), {r.tangent(0), r.in(1)}, r.attrs());
  if (r.has_tangent(1)) t = detail::add_tangents(t, detail::call1(*r.op(), {r.in(0), r.tangent(1)}, r.attrs()));
  return {t};
}

Ints inverse(const Ints& perm) {
  Ints inv(perm.size());
  for (std::size_t i = 0; i < perm.size(); ++i) inv[std::size_t(perm[i])] = std::int64_t(i);
  return inv;
}

std::vector<Tensor> convolution_vjp(const detail::Rule& r) {
  const Conv c = read(r.attrs());
  const bool reversed = std::any_of(c.reverse.begin(), c.reverse.end(), [](std::int64_t v) { return v != 0; });
  if (c.n != 2 || c.bgc != 1 || reversed)
    throw NotDifferentiableError(fmt::format(
        "vjp: op 'convolution' with {} spatial dims, batch_group_count {} and window_reversal {}: reverse mode "
        "covers 2 spatial dims, batch_group_count 1 and no reversal only",
        c.n, c.bgc, c.reverse));
  const Ints px{c.in_b, c.in_f, c.in_s[0], c.in_s[1]}, pw{c.k_o, c.k_i, c.k_s[0], c.k_s[1]},
      pg{c.out_b, c.out_f, c.out_s[0], c.out_s[1]};
  const Attrs a{{"window_strides", c.stride}, {"padding_low", c.pad_lo},   {"padding_high", c.pad_hi},
                {"lhs_dilation", c.lhs_dil},  {"rhs_dilation", c.rhs_dil}, {"feature_group_count", c.fgc}};
  const Tensor g = transpose(r.cotangent(), pg), x = transpose(r.in(0), px), w = transpose(r.in(1), pw);
  std::vector<Tensor> out(2);
  if (r.wants(0)) out[0] = transpose(detail::conv2d_input_grad(g, w, x.shape(), a), inverse(px));
  if (r.wants(1)) out[1] = transpose(detail::conv2d_kernel_grad(g, x, w.shape(), a), inverse(pw));
  return out;
}

using Kind = detail::StableHloAttr::Kind;
using detail::StableHloAttr;

std::string convolution_spelling(detail::CppOp& op) {
  std::vector<std::string> args = detail::cpp_conv_arguments(op.attrs(), true);
  args.push_back(detail::cpp_dtype(op.result_type(0).dtype));
  return detail::cpp_call("tl::lax::convolution", op, args);
}

const detail::OpDef& convolution_op =
    detail::def_op("convolution")
        .multilinear()
        .inputs(2)
        .shape_rule(conv_rule)
        .kernel(conv_kernel)
        .jvp(convolution_jvp)
        .vjp(convolution_vjp)
        .stablehlo(
            {"stablehlo.convolution",
             {StableHloAttr("window_strides", Kind::i64_array).optional(),
              StableHloAttr("padding", Kind::i64_matrix).optional(),
              StableHloAttr("lhs_dilation", Kind::i64_array).optional(),
              StableHloAttr("rhs_dilation", Kind::i64_array).optional(),
              StableHloAttr("window_reversal", Kind::bool_array).optional(),
              StableHloAttr("dimension_numbers", Kind::conv_dimension_numbers),
              StableHloAttr("feature_group_count", Kind::i64), StableHloAttr("batch_group_count", Kind::i64),
              StableHloAttr("precision_config", Kind::precision_list).optional(),
              StableHloAttr("result_element_type", Kind::result_dtype)},
             "convolution"})
        .cpp(convolution_spelling);

}  // namespace

std::vector<std::string> detail::cpp_conv_arguments(const Attrs& a, bool padding) {
  const Conv c = read(a);
  std::vector<std::string> args{fmt::format(
      "tl::lax::ConvDimensionNumbers{{.input_batch_dimension = {}, .input_feature_dimension = {}, "
      ".input_spatial_dimensions = {}, .kernel_input_feature_dimension = {}, "
      ".kernel_output_feature_dimension = {}, "
      ".kernel_spatial_dimensions = {}, .output_batch_dimension = {}, .output_feature_dimension = {}, "
      ".output_spatial_dimensions = {}}}",
      c.in_b, c.in_f, cpp_ints(c.in_s), c.k_i, c.k_o, cpp_ints(c.k_s), c.out_b, c.out_f, cpp_ints(c.out_s))};
  args.push_back(cpp_ints(c.stride));
  if (padding) args.insert(args.end(), {cpp_ints(c.pad_lo), cpp_ints(c.pad_hi)});
  args.insert(args.end(), {cpp_ints(c.lhs_dil), cpp_ints(c.rhs_dil), cpp_ints(c.reverse),
                           fmt::format("{}", c.fgc), fmt::format("{}", c.bgc)});
  return args;
}

Tensor lax::convolution(const Tensor& lhs, const Tensor& rhs, const ConvDimensionNumbers& dims,
                        const Ints& window_strides, const Ints& padding_low, const Ints& padding_high,
                        const Ints& lhs_dilation, const Ints& rhs_dilation, const Ints& window_reversal,
                        std::int64_t feature_group_count, std::int64_t batch_group_count,
                        DType result_element_type) {
  const Ints padding = detail::interleaved_padding(
      "lax::convolution", padding_low, padding_high,
      fmt::format("lhs {}, rhs {}", shape_string(lhs.shape()), shape_string(rhs.shape())));
  return detail::call1(convolution_op, {lhs, rhs},
                       detail::conv_attrs(dims, window_strides, &padding, lhs_dilation, rhs_dilation, window_reversal,
                                          feature_group_count, batch_group_count, result_element_type));
}

detail::Attrs detail::conv_attrs(const lax::ConvDimensionNumbers& dims, const Ints& window_strides, const Ints* padding,
                                 const Ints& lhs_dilation, const Ints& rhs_dilation, const Ints& window_reversal,
                                 std::int64_t feature_group_count, std::int64_t batch_group_count,
                                 DType result_element_type) {
  Attrs a{{"input_batch_dimension", dims.input_batch_dimension},
          {"input_feature_dimension", dims.input_feature_dimension},
          {"input_spatial_dimensions", dims.input_spatial_dimensions},
          {"kernel_input_feature_dimension", dims.kernel_input_feature_dimension},
          {"kernel_output_feature_dimension", dims.kernel_output_feature_dimension},
          {"kernel_spatial_dimensions", dims.kernel_spatial_dimensions},
          {"output_batch_dimension", dims.output_batch_dimension},
          {"output_feature_dimension", dims.output_feature_dimension},
          {"output_spatial_dimensions", dims.output_spatial_dimensions},
          {"window_strides", window_strides}};
  if (padding != nullptr) a.set("padding", *padding);
  a.set("lhs_dilation", lhs_dilation);
  a.set("rhs_dilation", rhs_dilation);
  a.set("window_reversal", window_reversal);
  a.set("feature_group_count", feature_group_count);
  a.set("batch_group_count", batch_group_count);
  a.set("result_element_type", result_element_type);
  return a;
}

std::vector<std::int64_t> detail::interleaved_padding(const char* op, const Ints& low, const Ints& high,
                                                      const std::string& operands) {
  if (low.size() != high.size())
    fail<ShapeError>(op, "padding_low {} and padding_high {} differ in length ({})", low, high, operands);
  Ints padding;
  for (std::size_t d = 0; d < low.size(); ++d) padding.insert(padding.end(), {low[d], high[d]});
  return padding;
}

}  // namespace tlaloc
