#include "core/convert.hpp"

#include <cstring>

#include "core/dispatch_type.hpp"
#include "core/narrow.hpp"
#include "core/parallel.hpp"
#include "core/tensor_impl.hpp"

namespace tlaloc::detail {
namespace {

template <class Out> void convert_into(const Tensor& x, const Tensor& y) {
  Out* dst = mutable_data<Out>(y);
  TLALOC_SWITCH_WITH_COMPLEX(x.dtype(), "convert", {
    const T* src = x.data<T>();
    parallel_for(x.numel(), kElementwiseGrain, [&](std::int64_t b, std::int64_t e) {
      for (std::int64_t i = b; i < e; ++i) dst[i] = convert_value<Out>(src[i]);
    });
  })
}

}  // namespace

Tensor converted(const Tensor& x, DType t) {
  // A narrow type goes through its compute type, exact on the way in; a narrow float
  // is rounded once, from f64.
  if (is_narrow(x.dtype()) && x.dtype() == t) {  // the same bytes
    Tensor y = empty(x.shape(), t);
    if (x.numel() > 0) std::memcpy(y.impl().data(), x.raw_data(), std::size_t(x.numel()));
    return y;
  }
  if (is_narrow(x.dtype())) return converted(widened(x), t);
  if (is_narrow_float(t)) return narrowed(x.dtype() == DType::f64 ? x : converted(x, DType::f64), t);
  if (is_narrow(t)) return narrowed(converted(x, compute_dtype(t)), t, is_inexact(x.dtype()));
  Tensor y = empty(x.shape(), t);
  TLALOC_SWITCH_WITH_COMPLEX(t, "convert", convert_into<T>(x, y))
  return y;
}

}  // namespace tlaloc::detail
