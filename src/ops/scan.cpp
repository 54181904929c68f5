// scan: a loop of known trip count over leading slices (JAX's lax.scan). Operands
// are the carried values and the sequences xs; region 0 maps (carry..., x slices...)
// to (carry..., y slices...); the results are the final carry and the ys stacked
// along a new leading axis. tl::fori_loop with bounds known at trace time is a scan
// with the loop index as its sequence, so reverse mode can stack residuals
// (src/ad/control.cpp). Like `if`, its result types are declared by whoever builds
// it; the region decides them.
#include "core/check.hpp"
#include "ops/op.hpp"
#include "tlaloc/ops.hpp"

namespace tlaloc::detail {
namespace {

// Slice i of x along its leading axis.
Tensor slice_at(const Tensor& x, std::int64_t i) {
  Shape rest(x.shape().begin() + 1, x.shape().end());
  return reshape(slice(x, 0, i, i + 1), rest);
}

std::vector<Tensor> run_scan(std::span<const Tensor> in, const Attrs& attrs, std::span<const TensorType> out,
                             const RegionCalls& regions) {
  const std::int64_t length = attrs.get<std::int64_t>("length");
  const auto nc = std::size_t(attrs.get<std::int64_t>("num_carry"));
  const bool reverse = attrs.get<bool>("reverse");
  std::vector<Tensor> carry(in.begin(), in.begin() + std::ptrdiff_t(nc));
  const std::size_t nx = in.size() - nc, ny = out.size() - nc;
  for (std::size_t k = nc; k < in.size(); ++k)
    if (in[k].rank() == 0 || in[k].size(0) != length)
      fail<ShapeError>("scan", "sequence {} has shape {}; its leading axis must be the length {}", k - nc,
                       shape_string(in[k].shape()), length);
  std::vector<std::vector<Tensor>> ys(ny, std::vector<Tensor>(std::size_t(length)));
  for (std::int64_t step = 0; step < length; ++step) {
    const std::int64_t i = reverse ? length - 1 - step : step;
    std::vector<Tensor> args = carry;
    for (std::size_t k = 0; k < nx; ++k) args.push_back(slice_at(in[nc + k], i));
    std::vector<Tensor> res = regions.call(0, args);
    if (res.size() != nc + ny) fail<ShapeError>("scan", "the body returned {} values for {}", res.size(), nc + ny);
    for (std::size_t k = 0; k < nc; ++k) {
      if (type_of(res[k]) != out[k])
        fail<ShapeError>("scan", "the body returned {}{} for carry {} of type {}{}", dtype_name(res[k].dtype()),
                         shape_string(res[k].shape()), k, dtype_name(out[k].dtype), shape_string(out[k].shape));
      carry[k] = res[k];
    }
    for (std::size_t k = 0; k < ny; ++k) ys[k][std::size_t(i)] = res[nc + k];
  }
  std::vector<Tensor> results = carry;
  for (std::size_t k = 0; k < ny; ++k)
    results.push_back(length == 0 ? zeros(out[nc + k].shape, out[nc + k].dtype) : stack(ys[k], 0));
  return results;
}

[[maybe_unused]] const OpDef& scan_op = def_op("scan").region_kernel(1, run_scan);

}  // namespace
}  // namespace tlaloc::detail
