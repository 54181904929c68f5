#include "core/layout.hpp"

#include <cstring>

#include "core/parallel.hpp"
#include "core/tensor_impl.hpp"

namespace tlaloc::detail {

std::vector<std::int64_t> strides_of(const Shape& s) {
  std::vector<std::int64_t> st(s.size(), 1);
  for (std::size_t i = s.size(); i-- > 1;) st[i - 1] = st[i] * s[i];
  return st;
}

namespace {
// Copies with element size E: the permutation is all that matters, not the type.
template <class E> void permute_elements(const E* src, E* dst, const Shape& out_shape,
                                         const std::vector<std::int64_t>& src_strides) {
  const std::size_t r = out_shape.size();
  std::int64_t total = 1;
  for (auto d : out_shape) total *= d;
  if (total == 0) return;
  const std::int64_t inner = out_shape[r - 1];
  const std::int64_t inner_stride = src_strides[r - 1];
  parallel_for(total / inner, std::max<std::int64_t>(1, kElementwiseGrain / inner),
               [&](std::int64_t b, std::int64_t e) {
                 std::vector<std::int64_t> idx(r, 0);
                 for (std::int64_t row = b; row < e; ++row) {
                   std::int64_t rem = row, off = 0;
                   for (std::size_t d = r - 1; d-- > 0;) {
                     off += (rem % out_shape[d]) * src_strides[d];
                     rem /= out_shape[d];
                   }
                   E* out = dst + row * inner;
                   const E* in = src + off;
                   for (std::int64_t i = 0; i < inner; ++i) out[i] = in[i * inner_stride];
                 }
               });
}
}  // namespace

Tensor permute_copy(const Tensor& x, const std::vector<std::int64_t>& perm) {
  const Shape& s = x.shape();
  Shape out_shape(perm.size());
  const auto st = strides_of(s);
  std::vector<std::int64_t> src_strides(perm.size());
  for (std::size_t i = 0; i < perm.size(); ++i) {
    out_shape[i] = s[std::size_t(perm[i])];
    src_strides[i] = st[std::size_t(perm[i])];
  }
  Tensor out = empty(out_shape, x.dtype());
  if (out_shape.empty()) {
    std::memcpy(out.impl().data(), x.raw_data(), itemsize(x.dtype()));
    return out;
  }
  with_element_size(itemsize(x.dtype()), [&](auto word) {
    using E = decltype(word);
    permute_elements(static_cast<const E*>(x.raw_data()), static_cast<E*>(out.impl().data()), out_shape,
                     src_strides);
  });
  return out;
}

}  // namespace tlaloc::detail
