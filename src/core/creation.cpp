// Tensors made from host values. These are constants, not ops: inside a trace they
// enter the program as literal values.
#include <cmath>
#include <cstring>

#include "core/check.hpp"
#include "core/convert.hpp"
#include "core/creation.hpp"
#include "core/dispatch_type.hpp"
#include "core/tensor_impl.hpp"
#include "tlaloc/ops.hpp"

namespace tlaloc {

using detail::fail;

namespace {
template <class T> void fill_with(const Tensor& t, Scalar v) {
  T* p = detail::mutable_data<T>(t);
  const T value = v.kind() == Scalar::Kind::floating ? detail::convert_value<T>(v.to_double())
                                                     : detail::convert_value<T>(v.to_int());
  std::fill(p, p + t.numel(), value);
}
}  // namespace

DType detail::default_dtype(Scalar v) {
  switch (v.kind()) {
    case Scalar::Kind::boolean: return DType::boolean;
    case Scalar::Kind::integer: return DType::i64;
    case Scalar::Kind::floating: return DType::f32;
  }
  return DType::f32;
}
Shape detail::eye_shape(std::int64_t n, std::int64_t m) {
  if (n < 0) fail<ValueError>("eye", "size must be non-negative, got {}", n);
  return {n, m < 0 ? n : m};
}

// A public template's instantiations take their visibility from its definition:
// exported, as the public headers' declarations are (export.hpp).
TLALOC_PUBLIC_BEGIN
template <class T> Tensor tensor(const std::vector<T>& data, const Shape& shape) {
  const std::int64_t n = detail::numel_of(shape);
  if (n != std::int64_t(data.size()))
    fail<ShapeError>("tensor", "{} values do not fill shape {}", data.size(), shape_string(shape));
  Tensor t = detail::empty(shape, dtype_v<T>);
  if (n > 0) std::memcpy(detail::mutable_data<T>(t), data.data(), data.size() * sizeof(T));
  return t;
}
template Tensor tensor(const std::vector<float>&, const Shape&);
template Tensor tensor(const std::vector<double>&, const Shape&);
template Tensor tensor(const std::vector<bf16>&, const Shape&);
template Tensor tensor(const std::vector<f16>&, const Shape&);
template Tensor tensor(const std::vector<std::int8_t>&, const Shape&);
template Tensor tensor(const std::vector<std::int16_t>&, const Shape&);
template Tensor tensor(const std::vector<std::int32_t>&, const Shape&);
template Tensor tensor(const std::vector<std::int64_t>&, const Shape&);
template Tensor tensor(const std::vector<std::uint8_t>&, const Shape&);
template Tensor tensor(const std::vector<std::uint16_t>&, const Shape&);
template Tensor tensor(const std::vector<std::uint32_t>&, const Shape&);
template Tensor tensor(const std::vector<std::uint64_t>&, const Shape&);
template Tensor tensor(const std::vector<std::complex<float>>&, const Shape&);
template Tensor tensor(const std::vector<std::complex<double>>&, const Shape&);
TLALOC_PUBLIC_END

Tensor tensor(const std::vector<bool>& data, const Shape& shape) {
  const std::int64_t n = detail::numel_of(shape);
  if (n != std::int64_t(data.size()))
    fail<ShapeError>("tensor", "{} values do not fill shape {}", data.size(), shape_string(shape));
  Tensor t = detail::empty(shape, DType::boolean);
  bool* p = detail::mutable_data<bool>(t);
  for (std::size_t i = 0; i < data.size(); ++i) p[i] = data[i];
  return t;
}
Tensor tensor(const std::vector<bool>& data) { return tensor(data, Shape{std::int64_t(data.size())}); }
Tensor tensor(std::initializer_list<float> data, const Shape& shape) {
  return tensor(std::vector<float>(data), shape);
}
Tensor tensor(std::initializer_list<double> data, const Shape& shape) {
  return tensor(std::vector<double>(data), shape);
}

namespace {
// Where a narrow type's values are made before they are rounded to it once.
DType wide_for(DType t) { return is_narrow_float(t) ? DType::f64 : DType::i64; }
}  // namespace

Tensor full(const Shape& shape, Scalar value, DType t) {
  if (is_narrow(t)) return detail::converted(full(shape, value, wide_for(t)), t);
  Tensor out = detail::empty(shape, t);
  TLALOC_SWITCH_WITH_COMPLEX(t, "full", fill_with<T>(out, value))
  return out;
}
Tensor full(const Shape& shape, Scalar value) { return full(shape, value, detail::default_dtype(value)); }
Tensor scalar_tensor(Scalar v, DType t) { return full({}, v, t); }
Tensor zeros(const Shape& shape, DType t) { return full(shape, 0, t); }
Tensor ones(const Shape& shape, DType t) { return full(shape, 1, t); }
// zeros_like(x) and ones_like(x) are ops (src/ops/like.cpp): x may be a value whose
// shape is known only at run time.
Tensor zeros_like(const Tensor& x, DType t) { return zeros(x.shape(), t); }
Tensor ones_like(const Tensor& x, DType t) { return ones(x.shape(), t); }
Tensor full_like(const Tensor& x, Scalar value) { return full(x.shape(), value, x.dtype()); }
Tensor full_like(const Tensor& x, Scalar value, DType t) { return full(x.shape(), value, t); }

Tensor arange(Scalar stop) { return arange(0, stop, 1); }
Tensor arange(Scalar start, Scalar stop, Scalar step) {
  const bool all_int = start.kind() != Scalar::Kind::floating &&
                       stop.kind() != Scalar::Kind::floating && step.kind() != Scalar::Kind::floating;
  return arange(start, stop, step, all_int ? DType::i64 : DType::f32);
}
Tensor arange(Scalar start, Scalar stop, Scalar step, DType t) {
  const double a = start.to_double(), b = stop.to_double(), s = step.to_double();
  if (s == 0 || !std::isfinite(a) || !std::isfinite(b) || !std::isfinite(s))
    fail<ValueError>("arange", "needs finite bounds and a non-zero step, got ({}, {}, {})", a, b, s);
  if (is_narrow(t)) return detail::converted(arange(start, stop, step, wide_for(t)), t);
  const auto n = std::int64_t(std::max(0.0, std::ceil((b - a) / s)));
  Tensor out = detail::empty({n}, t);
  TLALOC_SWITCH_ALL(t, "arange", {
    T* p = detail::mutable_data<T>(out);
    for (std::int64_t i = 0; i < n; ++i) p[i] = detail::convert_value<T>(a + double(i) * s);
  })
  return out;
}

Tensor linspace(double start, double stop, std::int64_t num, DType t) {
  if (num < 0) fail<ValueError>("linspace", "num must be non-negative, got {}", num);
  if (is_narrow(t)) return detail::converted(linspace(start, stop, num, wide_for(t)), t);
  Tensor out = detail::empty({num}, t);
  const double step = num > 1 ? (stop - start) / double(num - 1) : 0.0;
  TLALOC_SWITCH_ALL(t, "linspace", {
    T* p = detail::mutable_data<T>(out);
    // The second half counts back from stop so that the last value is exactly stop.
    for (std::int64_t i = 0; i < num; ++i)
      p[i] = detail::convert_value<T>(i < (num + 1) / 2 ? start + step * double(i)
                                                  : stop - step * double(num - 1 - i));
  })
  return out;
}

Tensor eye(std::int64_t n, std::int64_t m, std::int64_t k, DType t) {
  if (is_narrow(t)) return detail::converted(eye(n, m, k, wide_for(t)), t);
  const Shape shape = detail::eye_shape(n, m);
  m = shape[1];
  Tensor out = zeros(shape, t);
  TLALOC_SWITCH_WITH_COMPLEX(t, "eye", {
    T* p = detail::mutable_data<T>(out);
    for (std::int64_t i = 0; i < n; ++i)
      if (i + k >= 0 && i + k < m) p[i * m + i + k] = detail::convert_value<T>(1);
  })
  return out;
}

}  // namespace tlaloc
