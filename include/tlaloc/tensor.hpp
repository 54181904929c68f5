// tl::Tensor: an immutable, reference-counted, row-major array on the host, or a
// symbolic value inside a trace. Both kinds go through the same op entry points.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <iosfwd>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "tlaloc/export.hpp"
#include "tlaloc/dtype.hpp"
#include "tlaloc/error.hpp"

TLALOC_PUBLIC_BEGIN
namespace tlaloc {

using Shape = std::vector<std::int64_t>;

namespace detail {
struct TensorImpl;
// For a static_assert that names a misuse in a template, in a branch instantiated
// only on that misuse.
template <class...>
inline constexpr bool dependent_false = false;
}  // namespace detail

// A number passed where an op takes a scalar. It remembers whether it was written
// as a bool, an integer or a floating-point number: that "kind" decides the
// result dtype of `x + 1` versus `x + 1.0` (weak typing, docs/DTYPES.md).
class Scalar {
 public:
  enum class Kind : std::uint8_t { boolean, integer, floating };
  Scalar(bool v) : kind_(Kind::boolean), i_(v), d_(v) {}  // NOLINT(google-explicit-constructor)
  template <class T>
    requires(std::is_integral_v<T> && !std::is_same_v<T, bool>)
  Scalar(T v) : kind_(Kind::integer), i_(std::int64_t(v)), d_(double(v)) {}  // NOLINT
  template <class T>
    requires std::is_floating_point_v<T>
  Scalar(T v) : kind_(Kind::floating), i_(saturate(double(v))), d_(double(v)) {}  // NOLINT
  Kind kind() const { return kind_; }
  double to_double() const { return d_; }
  std::int64_t to_int() const { return i_; }

 private:
  // The integer value of a float: truncated, saturated, NaN as 0 (never undefined).
  static std::int64_t saturate(double v) {
    if (v != v) return 0;
    if (v >= 9223372036854775807.0) return INT64_MAX;
    if (v <= -9223372036854775808.0) return INT64_MIN;
    return std::int64_t(v);
  }
  Kind kind_;
  std::int64_t i_;
  double d_;
};

class Tensor {
 public:
  Tensor() = default;  // undefined: any use but defined() throws

  bool defined() const { return impl_ != nullptr; }
  // Whether both handles refer to the same tensor (PyTorch's is_same): functions that
  // would not change their argument (a reshape to its own shape, an astype to its own
  // dtype, ...) return it.
  bool is_same(const Tensor& other) const { return impl_ == other.impl_; }
  bool is_symbolic() const;  // a value inside a trace rather than host data
  DType dtype() const;
  const Shape& shape() const;
  std::int64_t rank() const { return std::int64_t(shape().size()); }
  std::int64_t numel() const;
  std::int64_t size(std::int64_t axis) const;  // negative axes count from the end

  // Host data, converted element by element to T (any supported element type).
  template <class T> std::vector<T> to_vector() const;
  // The single element of a tensor with numel 1, converted to T.
  template <class T> T item() const;
  // Read-only pointer to the elements; T must be the tensor's own element type.
  template <class T> const T* data() const;
  const void* raw_data() const;

  Tensor astype(DType t) const;
  std::string to_string() const;

  // Internals, for the library's own code.
  explicit Tensor(std::shared_ptr<detail::TensorImpl> impl) : impl_(std::move(impl)) {}
  detail::TensorImpl& impl() const;
  const std::shared_ptr<detail::TensorImpl>& impl_ptr() const { return impl_; }

 private:
  std::shared_ptr<detail::TensorImpl> impl_;
};

std::ostream& operator<<(std::ostream& os, const Tensor& t);
std::string shape_string(const Shape& s);  // "[2, 3]"

// ---- creation -------------------------------------------------------------
template <class T> Tensor tensor(const std::vector<T>& data, const Shape& shape);
template <class T> Tensor tensor(const std::vector<T>& data) {
  return tensor(data, Shape{std::int64_t(data.size())});
}
Tensor tensor(const std::vector<bool>& data, const Shape& shape);
Tensor tensor(const std::vector<bool>& data);
Tensor tensor(std::initializer_list<float> data, const Shape& shape);
Tensor tensor(std::initializer_list<double> data, const Shape& shape);
// A brace list alone is a 1-D tensor, as torch.tensor([0.5, -1.0]): f32 from floats,
// f64 from doubles, bool from bools (without these, a list of doubles would pick the
// std::vector<bool> overload and fail to narrow).
inline Tensor tensor(std::initializer_list<float> data) {
  return tensor(data, Shape{std::int64_t(data.size())});
}
inline Tensor tensor(std::initializer_list<double> data) {
  return tensor(data, Shape{std::int64_t(data.size())});
}
inline Tensor tensor(std::initializer_list<bool> data) { return tensor(std::vector<bool>(data)); }
Tensor scalar_tensor(Scalar v, DType t);  // rank 0

Tensor zeros(const Shape& shape, DType t = DType::f32);
Tensor ones(const Shape& shape, DType t = DType::f32);
Tensor full(const Shape& shape, Scalar value, DType t);
Tensor full(const Shape& shape, Scalar value);  // f32 for a floating value, i64 for an integer, bool for a bool
Tensor zeros_like(const Tensor& x);
Tensor zeros_like(const Tensor& x, DType t);
Tensor ones_like(const Tensor& x);
Tensor ones_like(const Tensor& x, DType t);
Tensor full_like(const Tensor& x, Scalar value);
Tensor full_like(const Tensor& x, Scalar value, DType t);
// [start, stop) in steps; the dtype defaults to i64 when all three are integers, else f32.
Tensor arange(Scalar stop);
Tensor arange(Scalar start, Scalar stop, Scalar step = 1);
Tensor arange(Scalar start, Scalar stop, Scalar step, DType t);
Tensor linspace(double start, double stop, std::int64_t num, DType t = DType::f32);  // endpoint included
Tensor eye(std::int64_t n, std::int64_t m = -1, std::int64_t k = 0, DType t = DType::f32);

// True when shapes broadcast and |a - b| <= atol + rtol * |b| everywhere.
bool allclose(const Tensor& a, const Tensor& b, double rtol = 1e-5, double atol = 1e-8,
              bool equal_nan = false);

}  // namespace tlaloc
TLALOC_PUBLIC_END
