// Complex values: stablehlo.complex, real and imag, and stablehlo.fft (the four
// transforms over the last one to three axes). The transforms compute in c128.
#include <fmt/format.h>

#include <cmath>
#include <complex>
#include <numbers>

#include "core/dispatch_type.hpp"
#include "core/elementwise.hpp"
#include "ops/cpp_spelling.hpp"
#include "ops/elementwise_defs.hpp"
#include "ops/rule.hpp"
#include "tlaloc/lax.hpp"

namespace tlaloc {
namespace {

using detail::Attrs;
using detail::fail;
using detail::StableHloAttr;
using detail::TensorType;
using Kind = StableHloAttr::Kind;
using I64s = std::vector<std::int64_t>;
using Cd = std::complex<double>;

// ---- complex, real, imag -------------------------------------------------------------

std::vector<TensorType> complex_rule(std::span<const TensorType> in, const Attrs&) {
  if (in[0].dtype != in[1].dtype || (in[0].dtype != DType::f32 && in[0].dtype != DType::f64))
    fail<DTypeError>("complex", "needs two f32 or two f64 operands, got {} and {}", in[0].dtype, in[1].dtype);
  if (in[0].shape != in[1].shape)
    fail<ShapeError>("complex", "needs operands of one shape, got {} and {}", shape_string(in[0].shape),
                     shape_string(in[1].shape));
  return {{complex_dtype(in[0].dtype), in[0].shape}};
}

std::vector<Tensor> complex_kernel(std::span<const Tensor> in, const Attrs&,
                                   std::span<const TensorType> out) {
  Tensor z = detail::empty(out[0].shape, out[0].dtype);
  TLALOC_SWITCH_COMPLEX(out[0].dtype, "complex", {
    using R = typename T::value_type;
    const R* re = in[0].data<R>();
    const R* im = in[1].data<R>();
    T* p = detail::mutable_data<T>(z);
    for (std::int64_t i = 0; i < z.numel(); ++i) p[i] = T(re[i], im[i]);
  })
  return {z};
}

// real(z) or imag(z); of a real operand, real is the operand and imag zeros (as the spec says).
template <bool imaginary>
detail::OpDef& def_part(const char* name, const char* spelling, const char* fn) {
  return detail::def_op(name)
      .inputs(1)
      .elementwise()
      .stablehlo(detail::elementwise_spelling(spelling))
      .shape_rule([name](std::span<const TensorType> in, const Attrs&) {
        if (!is_inexact(in[0].dtype))
          fail<DTypeError>(name, "needs a floating or complex operand, got {}", in[0].dtype);
        return std::vector<TensorType>{{real_dtype(in[0].dtype), in[0].shape}};
      })
      .kernel([name](std::span<const Tensor> in, const Attrs&, std::span<const TensorType> out) {
        if (!is_complex(in[0].dtype()))
          return std::vector<Tensor>{imaginary ? zeros(in[0].shape(), in[0].dtype()) : in[0]};
        Tensor y = detail::empty(out[0].shape, out[0].dtype);
        TLALOC_SWITCH_COMPLEX(in[0].dtype(), name, {
          using R = typename T::value_type;
          detail::map_loop<R>(in[0].data<T>(), detail::mutable_data<R>(y), y.numel(),
                              [](T z) { return imaginary ? z.imag() : z.real(); });
        })
        return std::vector<Tensor>{y};
      })
      .cpp(detail::cpp_fn(fn));
}

const detail::OpDef& complex_op = detail::def_op("complex")
                                      .inputs(2)
                                      .elementwise()
                                      .stablehlo({"stablehlo.complex", {}, "complex"})
                                      .shape_rule(complex_rule)
                                      .kernel(complex_kernel)
                                      .cpp(detail::cpp_fn("tl::lax::complex"));
const detail::OpDef& real_op = def_part<false>("real", "stablehlo.real", "tl::lax::real");
const detail::OpDef& imag_op = def_part<true>("imag", "stablehlo.imag", "tl::lax::imag");

// ---- fft -------------------------------------------------------------------------------

enum class FftType : std::uint8_t { fft, ifft, rfft, irfft };

FftType fft_type(const Attrs& a) {
  const std::string& t = a.get<std::string>("fft_type");
  if (t == "FFT") return FftType::fft;
  if (t == "IFFT") return FftType::ifft;
  if (t == "RFFT") return FftType::rfft;
  if (t == "IRFFT") return FftType::irfft;
  fail<ValueError>("fft", "has no fft_type '{}' (FFT, IFFT, RFFT, IRFFT)", t);
}

std::vector<TensorType> fft_rule(std::span<const TensorType> in, const Attrs& a) {
  const FftType type = fft_type(a);
  const I64s& len = a.get<I64s>("fft_length");
  const Shape& s = in[0].shape;
  const bool real_in = type == FftType::rfft;
  if (real_in ? !is_floating(in[0].dtype) || is_half(in[0].dtype) : !is_complex(in[0].dtype))
    fail<DTypeError>("fft", "{} needs a {} operand, got {}", a.get<std::string>("fft_type"),
                     real_in ? "f32 or f64" : "complex", in[0].dtype);
  if (len.empty() || len.size() > 3 || len.size() > s.size())
    fail<ShapeError>("fft", "fft_length {} needs 1 to 3 lengths and at most the operand's rank ({})",
                     shape_string(Shape(len.begin(), len.end())), shape_string(s));
  Shape out = s;
  const std::size_t k = len.size(), first = s.size() - k;
  for (std::size_t i = 0; i < k; ++i) {
    const bool last = i + 1 == k;
    // IRFFT's operand holds N/2 + 1 values on its last axis; every other axis is N.
    const std::int64_t want = type == FftType::irfft && last ? len[i] / 2 + 1 : len[i];
    if (len[i] < 1 || s[first + i] != want)
      fail<ShapeError>("fft", "{} with fft_length {} does not fit operand shape {}",
                       a.get<std::string>("fft_type"), shape_string(Shape(len.begin(), len.end())),
                       shape_string(s));
    if (last && type == FftType::rfft) out[first + i] = len[i] / 2 + 1;
    if (last && type == FftType::irfft) out[first + i] = len[i];
  }
  const DType t = type == FftType::rfft    ? complex_dtype(in[0].dtype)
                  : type == FftType::irfft ? real_dtype(in[0].dtype)
                                           : in[0].dtype;
  return {{t, out}};
}

// The transform of lines of one length N: X[k] = sum_n x[n] e^(-+2 pi i k n / N), the
// inverse scaled by 1/N. The twiddle table and the scratch line are made once per
// length, not per line. Radix 2 where N is a power of two, else the direct sum.
class Dft {
 public:
  Dft(std::size_t n, bool inverse) : inverse_(inverse), w_(n), scratch_(n) {
    const double sign = inverse ? 1.0 : -1.0;
    for (std::size_t j = 0; j < n; ++j)
      w_[j] = std::polar(1.0, sign * 2.0 * std::numbers::pi * double(j) / double(n));
  }

  void operator()(std::vector<Cd>& x) {
    const std::size_t n = x.size();
    if ((n & (n - 1)) == 0)
      radix2(x);
    else
      direct(x);
    if (inverse_)
      for (Cd& v : x) v /= double(n);
  }

 private:
  void direct(std::vector<Cd>& x) {
    const std::size_t n = x.size();
    for (std::size_t k = 0; k < n; ++k) {
      Cd sum = 0;
      for (std::size_t j = 0; j < n; ++j) sum += x[j] * w_[(k * j) % n];
      scratch_[k] = sum;
    }
    x.swap(scratch_);
  }

  void radix2(std::vector<Cd>& x) const {
    const std::size_t n = x.size();
    for (std::size_t i = 1, j = 0; i < n; ++i) {  // bit-reversed order
      std::size_t bit = n >> 1;
      for (; j & bit; bit >>= 1) j ^= bit;
      j ^= bit;
      if (i < j) std::swap(x[i], x[j]);
    }
    for (std::size_t len = 2; len <= n; len <<= 1)
      for (std::size_t i = 0; i < n; i += len)
        for (std::size_t j = 0; j < len / 2; ++j) {
          const Cd u = x[i + j], v = x[i + j + len / 2] * w_[j * (n / len)];
          x[i + j] = u + v;
          x[i + j + len / 2] = u - v;
        }
  }

  bool inverse_;
  std::vector<Cd> w_, scratch_;
};

// Calls f(line) on every line of `data` (shape s) along `axis`, writing it back.
template <class F>
void along_axis(std::vector<Cd>& data, const Shape& s, std::size_t axis, F f) {
  std::int64_t inner = 1;
  for (std::size_t d = axis + 1; d < s.size(); ++d) inner *= s[d];
  const std::int64_t n = s[axis], outer = n * inner == 0 ? 0 : std::int64_t(data.size()) / (n * inner);
  std::vector<Cd> line(static_cast<std::size_t>(n));
  for (std::int64_t o = 0; o < outer; ++o)
    for (std::int64_t i = 0; i < inner; ++i) {
      const std::int64_t base = o * n * inner + i;
      for (std::int64_t j = 0; j < n; ++j) line[std::size_t(j)] = data[std::size_t(base + j * inner)];
      f(line);
      for (std::int64_t j = 0; j < n; ++j) data[std::size_t(base + j * inner)] = line[std::size_t(j)];
    }
}

std::vector<Tensor> fft_kernel(std::span<const Tensor> in, const Attrs& a, std::span<const TensorType> out) {
  const FftType type = fft_type(a);
  const I64s& len = a.get<I64s>("fft_length");
  const Shape& s = in[0].shape();
  const std::size_t first = s.size() - len.size(), last = s.size() - 1;
  std::vector<Cd> v = in[0].astype(DType::c128).to_vector<Cd>();
  const bool inverse = type == FftType::ifft || type == FftType::irfft;
  // IRFFT: the outer axes first, then the last one from its N/2 + 1 values (the rest
  // by Hermitian symmetry) to N real values.
  const std::size_t full_axes = type == FftType::irfft ? last : s.size();
  for (std::size_t d = first; d < full_axes; ++d) along_axis(v, s, d, Dft(std::size_t(s[d]), inverse));
  if (type == FftType::irfft) {
    const auto n = std::size_t(len.back());
    std::vector<Cd> r;
    r.reserve(std::size_t(detail::numel_of(out[0].shape)));
    const std::size_t m = std::size_t(s.back()), lines = m == 0 ? 0 : v.size() / m;
    std::vector<Cd> line(n);
    Dft transform(n, true);
    for (std::size_t l = 0; l < lines; ++l) {
      for (std::size_t k = 0; k < n; ++k) line[k] = k < m ? v[l * m + k] : std::conj(v[l * m + (n - k)]);
      transform(line);
      r.insert(r.end(), line.begin(), line.end());
    }
    v = std::move(r);
  } else if (type == FftType::rfft) {  // keep the first N/2 + 1 values of the last axis
    const auto n = std::size_t(s.back()), m = std::size_t(out[0].shape.back());
    std::vector<Cd> r;
    for (std::size_t l = 0; n != 0 && l < v.size() / n; ++l)
      r.insert(r.end(), v.begin() + std::ptrdiff_t(l * n), v.begin() + std::ptrdiff_t(l * n + m));
    v = std::move(r);
  }
  return {tensor(v, out[0].shape).astype(out[0].dtype)};
}

const detail::OpDef& fft_op =
    detail::def_op("fft")
        .inputs(1)
        .shape_rule(fft_rule)
        .kernel(fft_kernel)
        .stablehlo({"stablehlo.fft",
                    {StableHloAttr("fft_type", Kind::enum_value).of_enum("fft_type").pretty("type"),
                     StableHloAttr("fft_length", Kind::i64_array).pretty("length")},
                    "keywords"})
        .cpp([](detail::CppOp& op) {
          const Attrs& a = op.attrs();
          return detail::cpp_call("tl::lax::fft", op,
                                  {detail::cpp_string(a.get<std::string>("fft_type")),
                                   detail::cpp_shape(a.get<I64s>("fft_length"))});
        });

}  // namespace

Tensor lax::complex(const Tensor& re, const Tensor& im) { return detail::call1(complex_op, {re, im}); }
Tensor lax::real(const Tensor& z) { return detail::call1(real_op, {z}); }
Tensor lax::imag(const Tensor& z) { return detail::call1(imag_op, {z}); }
Tensor lax::fft(const Tensor& x, const std::string& fft_type, const Shape& fft_length) {
  return detail::call1(fft_op, {x},
                       {{"fft_type", fft_type}, {"fft_length", I64s(fft_length.begin(), fft_length.end())}});
}

}  // namespace tlaloc
