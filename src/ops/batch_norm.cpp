// StableHLO's batch_norm_inference, batch_norm_training and batch_norm_grad:
// normalization along every dim but feature_index, computed in f64 and converted
// back. Training's variance is the biased one (divided by the element count), as
// the spec says.
#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "ir/op.hpp"
#include "ops/cpp_spelling.hpp"
#include "ops/rule.hpp"
#include "tlaloc/lax.hpp"
#include "tlaloc/ops.hpp"

namespace tlaloc {
namespace {

using detail::Attrs;
using detail::fail;
using detail::StableHloAttr;
using detail::TensorType;
using Kind = StableHloAttr::Kind;

std::int64_t feature_of(std::string_view op, std::span<const TensorType> in, const Attrs& attrs) {
  const Shape& s = in[0].shape;
  const std::int64_t f = attrs.get<std::int64_t>("feature_index");
  if (!is_floating(in[0].dtype)) fail<DTypeError>(op, "needs a floating-point operand, got {}", in[0].dtype);
  if (f < 0 || f >= std::int64_t(s.size()))
    fail<AxisError>(op, "feature_index {} is out of range for operand {}", f, shape_string(s));
  for (std::size_t i = 1; i < in.size(); ++i)
    if (in[i].shape != Shape{s[std::size_t(f)]} || in[i].dtype != in[0].dtype)
      fail<ShapeError>(op, "operand {} is {} {} but must be [{}] {}", i, shape_string(in[i].shape),
                       in[i].dtype, s[std::size_t(f)], in[0].dtype);
  return f;
}

// Element e's feature: its index along dim f of shape s.
struct Features {
  std::int64_t inner, count;
  std::int64_t of(std::int64_t e) const { return (e / inner) % count; }
};
Features features(const Shape& s, std::int64_t f) {
  std::int64_t inner = 1;
  for (std::size_t d = std::size_t(f) + 1; d < s.size(); ++d) inner *= s[d];
  return {inner, s[std::size_t(f)]};
}

Tensor normalize(const Tensor& x, std::int64_t f, const std::vector<double>& mean,
                 const std::vector<double>& var, const Tensor& scale, const Tensor& offset, double eps) {
  const Features ft = features(x.shape(), f);
  const std::vector<double> sc = scale.to_vector<double>(), of = offset.to_vector<double>();
  std::vector<double> v = x.to_vector<double>();
  for (std::size_t e = 0; e < v.size(); ++e) {
    const std::size_t c = std::size_t(ft.of(std::int64_t(e)));
    v[e] = (v[e] - mean[c]) / std::sqrt(var[c] + eps) * sc[c] + of[c];
  }
  return tensor(v, x.shape()).astype(x.dtype());
}

// ---- derivatives --------------------------------------------------------------------
// Written with the public ops over per-feature vectors ([F]) seen along
// feature_index, so that they differentiate again. inv = 1 / sqrt(var + eps) and
// x̂ = (x - mean) inv.
struct Norm {
  std::int64_t f;
  double eps;
  explicit Norm(const detail::Rule& r) : f(r.attr<std::int64_t>("feature_index")), eps(r.attr<double>("epsilon")) {}
  // v [F] shaped to broadcast against x.
  Tensor along(const Tensor& v, const Tensor& x) const {
    Shape s(std::size_t(x.rank()), 1);
    s[std::size_t(f)] = v.numel();
    return reshape(v, s);
  }
  // t summed over every dim but the feature dim: [F].
  Tensor per_feature(const Tensor& t) const {
    std::vector<std::int64_t> axes;
    for (std::int64_t d = 0; d < t.rank(); ++d)
      if (d != f) axes.push_back(d);
    return sum(t, Axes(axes));
  }
};

// batch_norm_inference(x, scale, offset, mean, variance): y = x̂ scale + offset, linear in
// x, scale, offset and mean; d y / d var = -x̂ scale inv^2 / 2.
std::vector<Tensor> inference_jvp(const detail::Rule& r) {
  const Norm n(r);
  const Tensor &x = r.in(0), &scale = r.in(1);
  const Tensor inv = rsqrt(r.in(4) + n.eps), xhat = (x - n.along(r.in(3), x)) * n.along(inv, x);
  Tensor t;
  if (r.has_tangent(0)) t = r.tangent(0) * n.along(scale * inv, x);
  if (r.has_tangent(1)) t = detail::add_tangents(t, xhat * n.along(r.tangent(1), x));
  if (r.has_tangent(2)) t = detail::add_tangents(t, n.along(r.tangent(2), x));
  if (r.has_tangent(3)) t = detail::add_tangents(t, n.along(-(r.tangent(3) * scale * inv), x));
  if (r.has_tangent(4)) t = detail::add_tangents(t, xhat * n.along(r.tangent(4) * scale * square(inv) * -0.5, x));
  return {broadcast_to_shape_of(t, x)};
}

std::vector<Tensor> inference_vjp(const detail::Rule& r) {
  const Norm n(r);
  const Tensor &x = r.in(0), &scale = r.in(1), &g = r.cotangent();
  const Tensor inv = rsqrt(r.in(4) + n.eps), xhat = (x - n.along(r.in(3), x)) * n.along(inv, x);
  std::vector<Tensor> out(5);
  const Tensor g_sum = n.per_feature(g), gx_sum = n.per_feature(g * xhat);
  if (r.wants(0)) out[0] = g * n.along(scale * inv, x);
  if (r.wants(1)) out[1] = gx_sum;
  if (r.wants(2)) out[2] = g_sum;
  if (r.wants(3)) out[3] = -(g_sum * scale * inv);
  if (r.wants(4)) out[4] = gx_sum * scale * square(inv) * -0.5;
  return out;
}

// batch_norm_training(x, scale, offset) -> (y, mean, var), the statistics over the
// n elements of each feature (var biased). d mean = sum(dx) / n and d var =
// 2 sum((x - mean) dx) / n; reverse: the usual batch-norm gradient plus the
// statistics' own cotangents.
std::vector<Tensor> training_jvp(const detail::Rule& r) {
  const Norm n(r);
  const Tensor &x = r.in(0), &scale = r.in(1), &mean = r.out(1);
  const double count = double(x.numel()) / double(std::max<std::int64_t>(mean.numel(), 1));
  const Tensor inv = rsqrt(r.out(2) + n.eps), centered = x - n.along(mean, x), xhat = centered * n.along(inv, x);
  std::vector<Tensor> t(3);
  if (r.has_tangent(0)) {
    const Tensor& tx = r.tangent(0);
    t[1] = n.per_feature(tx) / count;
    t[2] = n.per_feature(centered * tx) * (2.0 / count);
    const Tensor txhat = (tx - n.along(t[1], x)) * n.along(inv, x) - xhat * n.along(square(inv) * t[2] * 0.5, x);
    t[0] = txhat * n.along(scale, x);
  }
  if (r.has_tangent(1)) t[0] = detail::add_tangents(t[0], xhat * n.along(r.tangent(1), x));
  if (r.has_tangent(2)) t[0] = detail::add_tangents(t[0], n.along(r.tangent(2), x));
  t[0] = broadcast_to_shape_of(t[0], x);
  return t;
}

std::vector<Tensor> training_vjp(const detail::Rule& r) {
  const Norm n(r);
  const Tensor &x = r.in(0), &scale = r.in(1), &mean = r.out(1);
  const double count = double(x.numel()) / double(std::max<std::int64_t>(mean.numel(), 1));
  const Tensor inv = rsqrt(r.out(2) + n.eps), centered = x - n.along(mean, x), xhat = centered * n.along(inv, x);
  std::vector<Tensor> out(3);
  Tensor gx;
  if (r.has_cotangent(0)) {
    const Tensor& g = r.cotangent(0);
    const Tensor g_sum = n.per_feature(g), gx_sum = n.per_feature(g * xhat);
    gx = n.along(scale * inv / count, x) * (g * count - n.along(g_sum, x) - xhat * n.along(gx_sum, x));
    if (r.wants(1)) out[1] = gx_sum;
    if (r.wants(2)) out[2] = g_sum;
  }
  if (r.has_cotangent(1)) gx = detail::add_tangents(gx, n.along(r.cotangent(1) / count, x));
  if (r.has_cotangent(2)) gx = detail::add_tangents(gx, centered * n.along(r.cotangent(2) * (2.0 / count), x));
  if (r.wants(0)) out[0] = broadcast_to_shape_of(gx, x);
  return out;
}

detail::CppSpelling norm_spelling(const char* fn) {
  return [fn](detail::CppOp& op) {
    return detail::cpp_call(fn, op, {detail::cpp_double(op.attrs().get<double>("epsilon")),
                                     fmt::format("{}", op.attrs().get<std::int64_t>("feature_index"))});
  };
}

const detail::OpDef& inference_op =
    detail::def_op("batch_norm_inference")
        .inputs(5)
        .shape_rule([](std::span<const TensorType> in, const Attrs& a) {
          feature_of("batch_norm_inference", in, a);
          return std::vector<TensorType>{in[0]};
        })
        .kernel([](std::span<const Tensor> in, const Attrs& a, std::span<const TensorType>) {
          const std::int64_t f = a.get<std::int64_t>("feature_index");
          return std::vector<Tensor>{normalize(in[0], f, in[3].to_vector<double>(), in[4].to_vector<double>(),
                                               in[1], in[2], a.get<double>("epsilon"))};
        })
        .jvp(inference_jvp)
        .vjp(inference_vjp)
        .stablehlo(
            {"stablehlo.batch_norm_inference", {{"epsilon", Kind::f32}, {"feature_index", Kind::i64}}, ""})
        .cpp(norm_spelling("tl::lax::batch_norm_inference"));

std::vector<Tensor> training_kernel(std::span<const Tensor> in, const Attrs& a, std::span<const TensorType>) {
  const std::int64_t f = a.get<std::int64_t>("feature_index");
  const Features ft = features(in[0].shape(), f);
  const std::vector<double> v = in[0].to_vector<double>();
  std::vector<double> mean(std::size_t(ft.count), 0.0), var(std::size_t(ft.count), 0.0);
  const double n = ft.count == 0 ? 0.0 : double(v.size()) / double(ft.count);
  for (std::size_t e = 0; e < v.size(); ++e) mean[std::size_t(ft.of(std::int64_t(e)))] += v[e] / n;
  for (std::size_t e = 0; e < v.size(); ++e) {
    const std::size_t c = std::size_t(ft.of(std::int64_t(e)));
    var[c] += (v[e] - mean[c]) * (v[e] - mean[c]) / n;
  }
  const DType t = in[0].dtype();
  return {normalize(in[0], f, mean, var, in[1], in[2], a.get<double>("epsilon")), tensor(mean).astype(t),
          tensor(var).astype(t)};
}

const detail::OpDef& training_op =
    detail::def_op("batch_norm_training")
        .result_count([](std::size_t, const Attrs&) -> std::size_t { return 3; })
        .inputs(3)
        .shape_rule([](std::span<const TensorType> in, const Attrs& a) {
          feature_of("batch_norm_training", in, a);
          return std::vector<TensorType>{in[0], in[1], in[1]};
        })
        .kernel(training_kernel)
        .jvp(training_jvp)
        .vjp(training_vjp)
        .stablehlo(
            {"stablehlo.batch_norm_training", {{"epsilon", Kind::f32}, {"feature_index", Kind::i64}}, ""})
        .cpp(norm_spelling("tl::lax::batch_norm_training"));

// The spec's formula: with x̂ = (x - mean) / stddev and per-feature means over the
// N elements of each feature, grad_operand = scale / stddev (g - mean(g) -
// x̂ mean(g x̂)), grad_scale = sum(g x̂), grad_offset = sum(g). The given mean and
// variance are used as they are, not recomputed from the operand.
std::vector<Tensor> grad_kernel(std::span<const Tensor> in, const Attrs& a, std::span<const TensorType>) {
  const std::int64_t f = a.get<std::int64_t>("feature_index");
  const double eps = a.get<double>("epsilon");
  const Features ft = features(in[0].shape(), f);
  const std::vector<double> x = in[0].to_vector<double>(), g = in[4].to_vector<double>();
  const std::vector<double> scale = in[1].to_vector<double>(), mean = in[2].to_vector<double>(),
                            var = in[3].to_vector<double>();
  const std::size_t nf = std::size_t(ft.count);
  std::vector<double> stddev(nf), sum_g(nf, 0.0), sum_gx(nf, 0.0);
  for (std::size_t c = 0; c < nf; ++c) stddev[c] = std::sqrt(var[c] + eps);
  std::vector<double> xhat(x.size());
  for (std::size_t e = 0; e < x.size(); ++e) {
    const std::size_t c = std::size_t(ft.of(std::int64_t(e)));
    xhat[e] = (x[e] - mean[c]) / stddev[c];
    sum_g[c] += g[e];
    sum_gx[c] += g[e] * xhat[e];
  }
  const double n = nf == 0 ? 0.0 : double(x.size()) / double(nf);
  std::vector<double> dx(x.size());
  for (std::size_t e = 0; e < x.size(); ++e) {
    const std::size_t c = std::size_t(ft.of(std::int64_t(e)));
    dx[e] = scale[c] / stddev[c] * (g[e] - sum_g[c] / n - xhat[e] * sum_gx[c] / n);
  }
  const DType t = in[0].dtype();
  return {tensor(dx, in[0].shape()).astype(t), tensor(sum_gx).astype(t), tensor(sum_g).astype(t)};
}

const detail::OpDef& grad_op =
    detail::def_op("batch_norm_grad")
        .result_count([](std::size_t, const Attrs&) -> std::size_t { return 3; })
        .inputs(5)
        .shape_rule([](std::span<const TensorType> in, const Attrs& a) {
          // grad_output has the operand's type; the others are per feature.
          if (in[4] != in[0])
            fail<ShapeError>("batch_norm_grad", "grad_output is {} {} but the operand is {} {}",
                             shape_string(in[4].shape), in[4].dtype, shape_string(in[0].shape), in[0].dtype);
          feature_of("batch_norm_grad", in.first(4), a);
          return std::vector<TensorType>{in[0], in[1], in[1]};
        })
        .kernel(grad_kernel)
        .stablehlo({"stablehlo.batch_norm_grad", {{"epsilon", Kind::f32}, {"feature_index", Kind::i64}}, ""})
        .cpp(norm_spelling("tl::lax::batch_norm_grad"));

}  // namespace

Tensor lax::batch_norm_inference(const Tensor& x, const Tensor& scale, const Tensor& offset, const Tensor& mean,
                                 const Tensor& variance, double epsilon, std::int64_t feature_index) {
  return detail::call1(inference_op, {x, scale, offset, mean, variance},
                       {{"epsilon", epsilon}, {"feature_index", feature_index}});
}

std::vector<Tensor> lax::batch_norm_training(const Tensor& x, const Tensor& scale, const Tensor& offset,
                                             double epsilon, std::int64_t feature_index) {
  return detail::call(training_op, {x, scale, offset}, {{"epsilon", epsilon}, {"feature_index", feature_index}});
}

std::vector<Tensor> lax::batch_norm_grad(const Tensor& x, const Tensor& scale, const Tensor& mean,
                                         const Tensor& variance, const Tensor& grad_output, double epsilon,
                                         std::int64_t feature_index) {
  return detail::call(grad_op, {x, scale, mean, variance, grad_output},
                      {{"epsilon", epsilon}, {"feature_index", feature_index}});
}

}  // namespace tlaloc
