#include "ops/region_calls.hpp"

#include <cstring>

#include "core/check.hpp"
#include "core/tensor_impl.hpp"

namespace tlaloc::detail {

Tensor scalar_at(const Tensor& src, std::int64_t i) {
  Tensor t = empty({}, src.dtype());
  const std::size_t n = itemsize(src.dtype());
  std::memcpy(mutable_data<char>(t), static_cast<const char*>(src.raw_data()) + std::size_t(i) * n, n);
  return t;
}

Tensor map_region(std::string_view op, std::span<const Tensor> in, const TensorType& out,
                  const RegionCalls& regions) {
  Tensor y = empty(out.shape, out.dtype);
  const std::size_t w = itemsize(out.dtype);
  std::vector<Tensor> args(in.size());
  for (std::int64_t k = 0; k < y.numel(); ++k) {
    for (std::size_t i = 0; i < in.size(); ++i) args[i] = scalar_at(in[i], k);
    const std::vector<Tensor> r = regions.call(0, args);
    if (r.size() != 1 || type_of(r[0]) != TensorType{out.dtype, {}})
      fail<ShapeError>(op, "the computation must return one {} scalar", dtype_name(out.dtype));
    std::memcpy(mutable_data<char>(y) + std::size_t(k) * w, r[0].raw_data(), w);
  }
  return y;
}

}  // namespace tlaloc::detail
