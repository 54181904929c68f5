// Ops on the bits of values: bitcast_convert (reinterpretation, across widths too) and
// reduce_precision (rounding to a narrower float format, kept in the same type).
#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>

#include "core/narrow.hpp"
#include "ops/cpp_spelling.hpp"
#include "ops/elementwise_defs.hpp"
#include "ops/rule.hpp"
#include "tlaloc/lax.hpp"

namespace tlaloc {
namespace {

using detail::Attrs;
using detail::OpDef;
using detail::StableHloAttr;
using detail::TensorType;
using Kind = StableHloAttr::Kind;

// Types whose values take fewer bits than their byte (i1, i4, f6e2m3fn, ...).
bool sub_byte(DType t) { return std::size_t(bit_width(t)) < 8 * itemsize(t); }

// The spec's rule: to a narrower type, a new last axis holds the pieces of each
// element; to a wider one, the last axis (of the ratio's size) is consumed.
std::vector<TensorType> bitcast_rule(std::span<const TensorType> in, const Attrs& a) {
  const DType to = a.get<DType>("dtype"), from = in[0].dtype;
  Shape shape = in[0].shape;
  const auto wf = std::size_t(bit_width(from)), wt = std::size_t(bit_width(to));
  if (std::max(wf, wt) % std::min(wf, wt) != 0 || ((sub_byte(from) || sub_byte(to)) && std::max(wf, wt) > 64))
    detail::fail<DTypeError>("bitcast_convert",
                             "{} ({} bits) to {} ({} bits): neither width divides into the other "
                             "or a sub-byte type meets one wider than 64 bits",
                             from, wf, to, wt);
  if (wf > wt) {
    shape.push_back(std::int64_t(wf / wt));
  } else if (wf < wt) {
    if (shape.empty() || shape.back() != std::int64_t(wt / wf))
      detail::fail<ShapeError>("bitcast_convert", "{} to {} needs a last axis of {}, got shape {}", from, to,
                               wt / wf, shape_string(shape));
    shape.pop_back();
  }
  return {{to, shape}};
}

// Element k's bits: a sub-byte type keeps them in the low bits of its byte.
std::uint64_t bits_at(const unsigned char* p, DType t, std::int64_t k) {
  if (!sub_byte(t)) {
    std::uint64_t v = 0;
    std::memcpy(&v, p + std::size_t(k) * itemsize(t), itemsize(t));
    return v;
  }
  return p[k] & ((1u << bit_width(t)) - 1);
}
void put_bits(unsigned char* p, DType t, std::int64_t k, std::uint64_t v) {
  if (!sub_byte(t))
    std::memcpy(p + std::size_t(k) * itemsize(t), &v, itemsize(t));
  else if (t == DType::boolean)
    p[k] = static_cast<unsigned char>(v & 1u);
  else if (is_integral(t))  // sign- or zero-extended in its byte
    p[k] = detail::narrow_int_byte(t, std::int64_t(v));
  else
    p[k] = static_cast<unsigned char>(v);
}

// The bits as one little-endian stream: element k of i1 is bit k of the stream.
std::vector<Tensor> bitcast_kernel(std::span<const Tensor> in, const Attrs&,
                                   std::span<const TensorType> out) {
  Tensor y = detail::empty(out[0].shape, out[0].dtype);
  const auto* src = static_cast<const unsigned char*>(in[0].raw_data());
  auto* dst = static_cast<unsigned char*>(y.impl().data());
  const DType from = in[0].dtype(), to = out[0].dtype;
  if (!sub_byte(from) && !sub_byte(to)) {
    if (y.numel() > 0) std::memcpy(dst, src, std::size_t(y.numel()) * itemsize(to));
    return {y};
  }
  const int wf = bit_width(from), wt = bit_width(to);
  const auto mask = [](int w) { return w >= 64 ? ~std::uint64_t(0) : (std::uint64_t(1) << w) - 1; };
  if (wf >= wt) {
    const int r = wf / wt;
    for (std::int64_t k = 0; k < in[0].numel(); ++k) {
      const std::uint64_t v = bits_at(src, from, k);
      for (int j = 0; j < r; ++j) put_bits(dst, to, k * r + j, (v >> (j * wt)) & mask(wt));
    }
  } else {
    const int r = wt / wf;
    for (std::int64_t k = 0; k < y.numel(); ++k) {
      std::uint64_t v = 0;
      for (int j = 0; j < r; ++j) v |= bits_at(src, from, k * r + j) << (j * wf);
      put_bits(dst, to, k, v);
    }
  }
  return {y};
}

const OpDef& bitcast_convert_op =
    detail::def_op("bitcast_convert")
        .inputs(1)
        .stablehlo({"stablehlo.bitcast_convert", {StableHloAttr("dtype", Kind::result_dtype)}, "elementwise"})
        .shape_rule(bitcast_rule)
        .kernel(bitcast_kernel)
        .keeps_narrow_types()
        .cpp([](detail::CppOp& op) {
          return detail::cpp_call("tl::lax::bitcast_convert", op,
                                  {detail::cpp_dtype(op.attrs().get<DType>("dtype"))});
        });

// Rounds the bits of an IEEE value with E exponent and M mantissa bits (in an
// unsigned U) to `eb` exponent and `mb` mantissa bits: mantissa to nearest even,
// then values beyond the narrower exponent range overflow to infinity or (below
// its normal range, denormals included) flush to zero, keeping the sign. NaN stays
// NaN unless no mantissa bit is left to hold it.
template <class U, int E, int M>
U reduce_bits(U x, std::int64_t eb, std::int64_t mb) {
  const U sign = U(U(1) << (E + M)), exp_mask = U(((U(1) << E) - 1) << M), man_mask = U((U(1) << M) - 1);
  const bool nan = (x & exp_mask) == exp_mask && (x & man_mask) != 0;
  U r = x;
  if (mb < M) {
    const int drop = int(M - mb);
    const U last = U(U(1) << drop);
    const U bias = U(((last >> 1) - 1) + ((r & last) >> drop));
    r = U(U(r + bias) & U(~(last - 1)));
  }
  if (eb < E) {
    const std::int64_t bias = (std::int64_t(1) << (E - 1)) - 1, reduced = (std::int64_t(1) << (eb - 1)) - 1;
    const U e = U(r & exp_mask);
    if (e > U(U(bias + reduced) << M))
      r = U((x & sign) | exp_mask);
    else if (e <= U(U(bias - reduced) << M))
      r = U(x & sign);
  }
  if (nan) r = mb > 0 ? x : U((x & sign) | exp_mask);
  return r;
}

template <class T>
T reduce_value(T v, std::int64_t eb, std::int64_t mb) {
  if constexpr (std::is_same_v<T, double>) {
    return std::bit_cast<double>(reduce_bits<std::uint64_t, 11, 52>(std::bit_cast<std::uint64_t>(v), eb, mb));
  } else if constexpr (std::is_same_v<T, float>) {
    return std::bit_cast<float>(reduce_bits<std::uint32_t, 8, 23>(std::bit_cast<std::uint32_t>(v), eb, mb));
  } else {
    // 16-bit floats go through f32 exactly: the narrower mantissa fits, and the
    // exponent is reduced only when narrower than the type's own.
    constexpr bool half = std::is_same_v<T, f16>;
    const std::int64_t native_e = half ? 5 : 8, native_m = half ? 10 : 7;
    const float f = reduce_value(float(v), eb < native_e ? eb : 8, mb < native_m ? mb : native_m);
    return T(f);
  }
}

const OpDef& reduce_precision_op =
    detail::def_op("reduce_precision")
        .inputs(1)
        .elementwise()
        .stablehlo({"stablehlo.reduce_precision",
                    {StableHloAttr("exponent_bits", Kind::i32), StableHloAttr("mantissa_bits", Kind::i32)},
                    "reduce_precision"})
        .shape_rule([](std::span<const TensorType> in, const Attrs& a) {
          const auto eb = a.get<std::int64_t>("exponent_bits"), mb = a.get<std::int64_t>("mantissa_bits");
          if (!is_floating(in[0].dtype))
            detail::fail<DTypeError>("reduce_precision", "takes floats, got {}", in[0].dtype);
          if (eb < 1 || mb < 0)
            detail::fail<ValueError>(
                "reduce_precision", "needs exponent_bits >= 1 and mantissa_bits >= 0, got {} and {}", eb, mb);
          return std::vector<TensorType>{in[0]};
        })
        .kernel([](std::span<const Tensor> in, const Attrs& a, std::span<const TensorType>) {
          const auto eb = a.get<std::int64_t>("exponent_bits"), mb = a.get<std::int64_t>("mantissa_bits");
          Tensor y = detail::empty(in[0].shape(), in[0].dtype());
          TLALOC_SWITCH_FLOATING(in[0].dtype(), "reduce_precision", {
            const T* src = in[0].data<T>();
            T* dst = detail::mutable_data<T>(y);
            for (std::int64_t i = 0; i < in[0].numel(); ++i) dst[i] = reduce_value(src[i], eb, mb);
          })
          return std::vector<Tensor>{y};
        })
        // Its true derivative is zero almost everywhere, which would stop training
        // through it; as in JAX it is treated as the identity (straight through).
        // Unlike JAX, which rounds the tangent as well, tangents and cotangents pass
        // through unchanged, so the rule is exactly linear and its own transpose.
        .jvp([](const detail::Rule& r) { return std::vector<Tensor>{r.tangent(0)}; })
        .vjp([](const detail::Rule& r) { return std::vector<Tensor>{r.cotangent()}; })
        .cpp([](detail::CppOp& op) {
          return detail::cpp_call("tl::lax::reduce_precision", op,
                                  {fmt::format("{}", op.attrs().get<std::int64_t>("exponent_bits")),
                                   fmt::format("{}", op.attrs().get<std::int64_t>("mantissa_bits"))});
        });

}  // namespace

Tensor lax::bitcast_convert(const Tensor& x, DType dtype) {
  return detail::call1(bitcast_convert_op, {x}, {{"dtype", dtype}});
}

Tensor lax::reduce_precision(const Tensor& x, std::int64_t exponent_bits, std::int64_t mantissa_bits) {
  return detail::call1(reduce_precision_op, {x}, {{"exponent_bits", exponent_bits}, {"mantissa_bits", mantissa_bits}});
}

}  // namespace tlaloc
