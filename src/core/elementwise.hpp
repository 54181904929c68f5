// Loops shared by every elementwise kernel: a flat loop over contiguous data and a
// broadcasting loop that walks rows of the output with per-operand strides.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <vector>

#include "core/convert.hpp"
#include "core/dispatch_type.hpp"
#include "core/parallel.hpp"
#include "core/tensor_impl.hpp"

namespace tlaloc::detail {

// out[i] = f(x[i]) with x widened to its compute type; out converted to Out.
template <class Out, class In, class F> void map_loop(const In* x, Out* out, std::int64_t n, F f) {
  parallel_for(n, kElementwiseGrain, [&](std::int64_t b, std::int64_t e) {
    for (std::int64_t i = b; i < e; ++i)
      out[i] = convert_value<Out>(f(static_cast<compute_t<In>>(x[i])));
  });
}

// A kernel's function that also takes complex values: `complex` computes on
// std::complex, `real` on every other type. Only functions wrapped so reach the
// complex cases of the maps and loops below; others refuse complex operands by name.
template <class Real, class Complex>
struct ComplexToo {
  Real real;
  Complex complex;
  template <class... V>
  auto operator()(V... v) const {
    if constexpr ((is_complex_v<V> || ...))
      return complex(v...);
    else
      return real(v...);
  }
};
// One function for both (one whose body compiles for complex values too).
template <class F>
ComplexToo<F, F> complex_too(F f) {
  return {f, f};
}
template <class R, class C>
ComplexToo<R, C> complex_too(R real, C complex) {
  return {real, complex};
}
template <class F>
inline constexpr bool takes_complex_v = false;
template <class R, class C>
inline constexpr bool takes_complex_v<ComplexToo<R, C>> = true;

// Runs BODY with `T` bound to DT's element type: complex ones too where F takes them.
#define TLALOC_SWITCH_FOR(F, dtype, op, ...)            \
  if constexpr (::tlaloc::detail::takes_complex_v<F>) { \
    TLALOC_SWITCH_WITH_COMPLEX(dtype, op, __VA_ARGS__)  \
  } else {                                              \
    TLALOC_SWITCH_ALL(dtype, op, __VA_ARGS__)           \
  }

// An elementwise map keeping the element type.
template <class F> Tensor map_same(std::string_view op, const Tensor& x, F f) {
  Tensor out = empty(x.shape(), x.dtype());
  TLALOC_SWITCH_FOR(F, x.dtype(), op, map_loop<T>(x.data<T>(), mutable_data<T>(out), x.numel(), f))
  return out;
}

// An elementwise map of a floating tensor keeping its element type.
template <class F> Tensor map_floating(std::string_view op, const Tensor& x, F f) {
  Tensor out = empty(x.shape(), x.dtype());
  if constexpr (takes_complex_v<F>) {
    if (is_complex(x.dtype())) {
      TLALOC_SWITCH_COMPLEX(x.dtype(), op, map_loop<T>(x.data<T>(), mutable_data<T>(out), x.numel(), f))
      return out;
    }
  }
  TLALOC_SWITCH_FLOATING(x.dtype(), op, map_loop<T>(x.data<T>(), mutable_data<T>(out), x.numel(), f))
  return out;
}

// An elementwise map to element type Out.
template <class Out, class F> Tensor map_to(std::string_view op, const Tensor& x, F f) {
  Tensor out = empty(x.shape(), dtype_v<Out>);
  TLALOC_SWITCH_ALL(x.dtype(), op, map_loop<Out>(x.data<T>(), mutable_data<Out>(out), x.numel(), f))
  return out;
}

// How N operands broadcast against an output shape, with adjacent dims merged
// where every operand allows it. Strides are in elements; 0 repeats a value.
template <std::size_t N> struct BroadcastPlan {
  Shape dims;
  std::array<std::vector<std::int64_t>, N> strides;
};

template <std::size_t N>
BroadcastPlan<N> plan_broadcast(const Shape& out, const std::array<const Shape*, N>& in) {
  const std::size_t r = out.size();
  BroadcastPlan<N> p;
  std::array<std::vector<std::int64_t>, N> full;
  for (std::size_t k = 0; k < N; ++k) {
    const Shape& s = *in[k];
    full[k].assign(r, 0);
    std::int64_t stride = 1;
    for (std::size_t i = s.size(); i-- > 0;) {
      const std::size_t d = i + r - s.size();
      full[k][d] = s[i] == 1 ? 0 : stride;
      stride *= s[i];
    }
  }
  for (std::size_t d = 0; d < r; ++d) {
    if (out[d] == 1) continue;
    bool merge = !p.dims.empty();
    for (std::size_t k = 0; k < N && merge; ++k)
      merge = p.strides[k].back() == full[k][d] * out[d];
    if (merge) {
      p.dims.back() *= out[d];
      for (std::size_t k = 0; k < N; ++k) p.strides[k].back() = full[k][d];
    } else {
      p.dims.push_back(out[d]);
      for (std::size_t k = 0; k < N; ++k) p.strides[k].push_back(full[k][d]);
    }
  }
  if (p.dims.empty()) {
    p.dims.push_back(1);
    for (std::size_t k = 0; k < N; ++k) p.strides[k].push_back(0);
  }
  return p;
}

// Calls row(out_offset, length, in_offsets, inner_strides) over the output in
// row-major order, split across threads by output position.
template <std::size_t N, class Row> void for_each_row(const BroadcastPlan<N>& p, Row row) {
  const std::size_t r = p.dims.size();
  std::int64_t total = 1;
  for (std::int64_t d : p.dims) total *= d;
  const std::int64_t inner = p.dims.back();
  std::array<std::int64_t, N> inner_strides;
  for (std::size_t k = 0; k < N; ++k) inner_strides[k] = p.strides[k].back();
  parallel_for(total, kElementwiseGrain, [&](std::int64_t b, std::int64_t e) {
    std::vector<std::int64_t> idx(r);
    std::array<std::int64_t, N> off{};
    std::int64_t rem = b;
    for (std::size_t d = r; d-- > 0;) {
      idx[d] = rem % p.dims[d];
      rem /= p.dims[d];
      for (std::size_t k = 0; k < N; ++k) off[k] += idx[d] * p.strides[k][d];
    }
    for (std::int64_t pos = b; pos < e;) {
      const std::int64_t len = std::min(inner - idx[r - 1], e - pos);
      row(pos, len, off, inner_strides);
      pos += len;
      idx[r - 1] += len;
      for (std::size_t k = 0; k < N; ++k) off[k] += len * inner_strides[k];
      for (std::size_t d = r - 1; d > 0 && idx[d] == p.dims[d]; --d) {
        idx[d] = 0;
        ++idx[d - 1];
        for (std::size_t k = 0; k < N; ++k)
          off[k] += p.strides[k][d - 1] - p.dims[d] * p.strides[k][d];
      }
    }
  });
}

// out = f(a, b) elementwise with broadcasting; a and b have element type In.
template <class Out, class In, class F>
void binary_loop(const Tensor& a, const Tensor& b, const Tensor& out, F f) {
  const In* pa = a.data<In>();
  const In* pb = b.data<In>();
  Out* po = mutable_data<Out>(out);
  using C = compute_t<In>;
  auto apply = [&](C x, C y) { return convert_value<Out>(f(x, y)); };
  if (a.shape() == b.shape()) {
    parallel_for(out.numel(), kElementwiseGrain, [&](std::int64_t s, std::int64_t e) {
      for (std::int64_t i = s; i < e; ++i) po[i] = apply(C(pa[i]), C(pb[i]));
    });
    return;
  }
  const auto plan = plan_broadcast<2>(out.shape(), {&a.shape(), &b.shape()});
  for_each_row(plan, [&](std::int64_t o, std::int64_t n, const std::array<std::int64_t, 2>& off,
                         const std::array<std::int64_t, 2>& st) {
    const In* x = pa + off[0];
    const In* y = pb + off[1];
    Out* z = po + o;
    if (st[0] == 1 && st[1] == 1) {
      for (std::int64_t i = 0; i < n; ++i) z[i] = apply(C(x[i]), C(y[i]));
    } else if (st[0] == 0 && st[1] == 1) {
      const C xv = C(x[0]);
      for (std::int64_t i = 0; i < n; ++i) z[i] = apply(xv, C(y[i]));
    } else if (st[0] == 1 && st[1] == 0) {
      const C yv = C(y[0]);
      for (std::int64_t i = 0; i < n; ++i) z[i] = apply(C(x[i]), yv);
    } else {
      for (std::int64_t i = 0; i < n; ++i) z[i] = apply(C(x[i * st[0]]), C(y[i * st[1]]));
    }
  });
}

}  // namespace tlaloc::detail
