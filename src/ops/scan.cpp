// scan: a loop of known trip count over leading slices (JAX's lax.scan). Operands
// are the carried values and the sequences xs; region 0 maps (carry..., x slices...)
// to (carry..., y slices...); the results are the final carry and the ys stacked
// along a new leading axis. tl::fori_loop with bounds known at trace time is a scan
// with the loop index as its sequence, so reverse mode can stack residuals
// (src/ad/control.cpp). Like `if`, its result types are declared by whoever builds
// it; the region decides them.
#include <fmt/format.h>

#include "core/check.hpp"
#include "ir/builder.hpp"
#include "ir/op.hpp"
#include "ops/cpp_spelling.hpp"
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

// StableHLO has no scan: a while loop over (counter, carry, xs, ys) that slices
// xs and writes ys with dynamic_slice / dynamic_update_slice, as JAX lowers it.
std::vector<Tensor> lower_scan(std::span<const Tensor> in, const Attrs& attrs, const RegionInliner& body) {
  ir::Builder* b = ir::current_builder();
  const std::int64_t length = attrs.get<std::int64_t>("length");
  const auto nc = std::size_t(attrs.get<std::int64_t>("num_carry"));
  const bool reverse = attrs.get<bool>("reverse");
  const std::size_t nx = in.size() - nc;
  // The ys' types: the body's results after the carry, found by tracing it once.
  std::vector<TensorType> y_types;
  std::vector<Tensor> state{scalar_tensor(0, DType::i64)};
  state.insert(state.end(), in.begin(), in.end());
  std::vector<TensorType> types;
  for (const Tensor& t : state) types.push_back(type_of(t));
  const OpDef& slice_op = *find_op("dynamic_slice");
  const OpDef& update_op = *find_op("dynamic_update_slice");
  const auto starts = [](const Tensor& i, std::size_t rank) {
    std::vector<Tensor> s{i};
    for (std::size_t d = 1; d < rank; ++d) s.push_back(scalar_tensor(0, DType::i64));
    return s;
  };
  const auto step = [&](std::span<const Tensor> a, bool record_ys) {
    const Tensor& i = a[0];
    const Tensor at = reverse ? (length - 1) - i : i;
    std::vector<Tensor> args(a.begin() + 1, a.begin() + 1 + std::ptrdiff_t(nc));
    for (std::size_t k = 0; k < nx; ++k) {
      const Tensor& x = a[1 + nc + k];
      Shape size = x.shape();
      size[0] = 1;
      std::vector<Tensor> ops{x};
      for (const Tensor& st : starts(at, size.size())) ops.push_back(st);
      args.push_back(reshape(call1(slice_op, ops, {{"slice_sizes", size}}), Shape(size.begin() + 1, size.end())));
    }
    std::vector<Tensor> res = body(0, args);
    std::vector<Tensor> next{i + 1};
    next.insert(next.end(), res.begin(), res.begin() + std::ptrdiff_t(nc));
    next.insert(next.end(), a.begin() + 1 + std::ptrdiff_t(nc), a.begin() + 1 + std::ptrdiff_t(nc + nx));
    for (std::size_t k = 0; record_ys && k < res.size() - nc; ++k) {
      const Tensor& y = res[nc + k];
      Shape one{1};
      one.insert(one.end(), y.shape().begin(), y.shape().end());
      std::vector<Tensor> ops{a[1 + nc + nx + k], reshape(y, one)};
      for (const Tensor& st : starts(at, one.size())) ops.push_back(st);
      next.push_back(call1(update_op, ops, {}));
    }
    if (!record_ys)
      for (std::size_t k = nc; k < res.size(); ++k) y_types.push_back(type_of(res[k]));
    return next;
  };
  // Trace the body once, untaken, to learn the ys' types.
  b->region(types, [&](std::span<const Tensor> a) { return step(a, false); });
  for (const TensorType& t : y_types) {
    Shape s{length};
    s.insert(s.end(), t.shape.begin(), t.shape.end());
    state.push_back(zeros(s, t.dtype));
    types.push_back(type_of(state.back()));
  }
  std::vector<ir::Region> regions;
  regions.push_back(b->region(types, [&](std::span<const Tensor> a) { return std::vector<Tensor>{a[0] < length}; }));
  regions.push_back(b->region(types, [&](std::span<const Tensor> a) { return step(a, true); }));
  const std::vector<Tensor> out = b->record(*find_op("while"), state, {}, types, std::move(regions));
  std::vector<Tensor> results(out.begin() + 1, out.begin() + 1 + std::ptrdiff_t(nc));
  results.insert(results.end(), out.begin() + 1 + std::ptrdiff_t(nc + nx), out.end());
  return results;
}

// A C++ for over the steps, as run_scan: each x sliced at i, each y kept and
// stacked at the end.
std::string scan_spelling(CppOp& op) {
  const std::int64_t length = op.attrs().get<std::int64_t>("length");
  const auto nc = std::size_t(op.attrs().get<std::int64_t>("num_carry"));
  const std::size_t nx = op.num_operands() - nc, ny = op.num_results() - nc;
  const std::vector<std::string> carry = cpp_carry(op, 0, nc);
  std::vector<std::string> ys;
  for (std::size_t k = 0; k < ny; ++k) {
    ys.push_back(op.fresh("ys"));
    op.line(fmt::format("std::vector<tl::Tensor> {}({});", ys.back(), length));
  }
  const std::string i = op.fresh("i");
  op.open(op.attrs().get<bool>("reverse") ? fmt::format("for (std::int64_t {0} = {1} - 1; {0} >= 0; --{0})", i, length)
                                          : fmt::format("for (std::int64_t {0} = 0; {0} < {1}; ++{0})", i, length));
  std::vector<std::string> args = carry;
  for (std::size_t k = 0; k < nx; ++k) {
    const Shape& s = op.operand_type(nc + k).shape;
    args.push_back(op.fresh("x"));
    op.line(fmt::format("const tl::Tensor {} = tl::reshape(tl::slice({}, 0, {}, {} + 1), {});", args.back(),
                        op.operand(nc + k), i, i, cpp_shape(Shape(s.begin() + 1, s.end()))));
  }
  const std::vector<std::string> res = op.region(0, args);
  for (std::size_t k = 0; k < ny; ++k) op.line(fmt::format("{}[std::size_t({})] = {};", ys[k], i, res[nc + k]));
  cpp_assign(op, carry, std::vector<std::string>(res.begin(), res.begin() + std::ptrdiff_t(nc)));
  op.close("}");
  for (std::size_t k = 0; k < ny; ++k) {
    const TensorType& t = op.result_type(nc + k);
    op.line(length == 0 ? fmt::format("const tl::Tensor {} = tl::zeros({}, {});", op.result(nc + k), cpp_shape(t.shape), cpp_dtype(t.dtype))
                        : fmt::format("const tl::Tensor {} = tl::stack({}, 0);", op.result(nc + k), ys[k]));
  }
  return "";
}

[[maybe_unused]] const OpDef& scan_op =
    def_op("scan").region_kernel(1, run_scan).lower_with_regions(lower_scan).cpp(scan_spelling);

}  // namespace
}  // namespace tlaloc::detail
