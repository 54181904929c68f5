// How ops run on the narrow storage types (core/narrow.hpp): in their compute_dtype,
// each result rounded back to the type the op declares. Integers wrap and floats round
// once, so an op on values gives what it would give in the narrow type itself.
#include <algorithm>

#include "core/narrow.hpp"
#include "ir/op.hpp"

namespace tlaloc::detail {
namespace {

Tensor wide(const Tensor& t) { return t.defined() && is_narrow(t.dtype()) ? widened(t) : t; }

std::vector<Tensor> wide_all(std::vector<Tensor> ts) {
  for (Tensor& t : ts) t = wide(t);
  return ts;
}

// A region's results come back widened: the kernel calling it computes in the wide types.
class WideRegions final : public RegionCalls {
 public:
  explicit WideRegions(const RegionCalls& inner) : inner_(inner) {}
  std::size_t size() const override { return inner_.size(); }
  std::vector<Tensor> call(std::size_t region, std::span<const Tensor> args) const override {
    return wide_all(inner_.call(region, args));
  }
  std::vector<std::vector<Tensor>> call_as_processes(std::size_t region,
                                                     std::span<const std::vector<Tensor>> args,
                                                     const std::vector<bool>& same) const override {
    std::vector<std::vector<Tensor>> out = inner_.call_as_processes(region, args, same);
    for (std::vector<Tensor>& each : out) each = wide_all(std::move(each));
    return out;
  }
  std::string_view binary_body(std::size_t region) const override { return inner_.binary_body(region); }
  PairOp first_pair_op(std::size_t region) const override { return inner_.first_pair_op(region); }

 private:
  const RegionCalls& inner_;
};

}  // namespace

bool OpDef::needs_widening(std::span<const Tensor> in, std::span<const TensorType> out) const {
  if (keeps_narrow_) return false;
  return std::any_of(in.begin(), in.end(),
                     [](const Tensor& t) { return t.defined() && is_narrow(t.dtype()); }) ||
         std::any_of(out.begin(), out.end(),
                     [](const TensorType& t) { return !t.token && is_narrow(t.dtype); });
}

std::vector<Tensor> OpDef::run_widened(std::span<const Tensor> in, const Attrs& attrs,
                                       std::span<const TensorType> out, const RegionCalls* regions) const {
  std::vector<Tensor> wide_in;
  for (const Tensor& t : in) {
    if (on_bits_ && t.defined() && is_narrow(t.dtype()) && !is_narrow_float(t.dtype()))
      fail<DTypeError>(name_, "works on the bits of its operands and has no kernel for {} (a {}-bit integer)",
                       t.dtype(), bit_width(t.dtype()));
    wide_in.push_back(wide(t));
  }
  std::vector<TensorType> wide_out(out.begin(), out.end());
  for (TensorType& t : wide_out) t.dtype = compute_dtype(t.dtype);
  std::vector<Tensor> results = regions != nullptr
                                    ? region_kernel_(wide_in, attrs, wide_out, WideRegions(*regions))
                                    : kernel_(wide_in, attrs, wide_out);
  for (std::size_t i = 0; i < results.size() && i < out.size(); ++i)
    if (!out[i].token && is_narrow(out[i].dtype)) results[i] = narrowed(results[i], out[i].dtype);
  return results;
}

}  // namespace tlaloc::detail
